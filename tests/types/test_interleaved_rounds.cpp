// The plan of interleaved rounds: shares of the measured passes, the rotating order of the
// cases, the warm-up of later rounds, and the default, worked by hand.
#include <gtest/gtest.h>

#include <stdexcept>

#include "experiments/interleaved_rounds.h"

using namespace stepscope;

TEST(InterleavedRounds, SplitsThePassesEvenlyTheLargerSharesFirst) {
  EXPECT_EQ(passes_per_round(100, 5), (std::vector<int>{20, 20, 20, 20, 20}));
  EXPECT_EQ(passes_per_round(7, 3), (std::vector<int>{3, 2, 2}));
  EXPECT_EQ(passes_per_round(3, 3), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(passes_per_round(9, 1), (std::vector<int>{9}));
}

TEST(InterleavedRounds, RefusesMoreRoundsThanPassesAndNoRounds) {
  EXPECT_THROW(passes_per_round(4, 5), std::invalid_argument);
  EXPECT_THROW(passes_per_round(4, 0), std::invalid_argument);
}

TEST(InterleavedRounds, EachCaseOpensARoundInTurn) {
  // Three cases over four rounds of 10 passes: orders 012, 120, 201, 012.
  const auto slots = interleaved_rounds(3, 4, 5, 40);
  ASSERT_EQ(slots.size(), 12u);
  const int expected[12] = {0, 1, 2, 1, 2, 0, 2, 0, 1, 0, 1, 2};
  for (size_t i = 0; i < slots.size(); ++i) {
    EXPECT_EQ(slots[i].case_index, expected[i]) << "slot " << i;
    EXPECT_EQ(slots[i].round, static_cast<int>(i / 3)) << "slot " << i;
    EXPECT_EQ(slots[i].measured, 10) << "slot " << i;
  }
}

TEST(InterleavedRounds, LaterRoundsWarmUpBriefly) {
  const auto slots = interleaved_rounds(2, 3, 5, 6);
  EXPECT_EQ(slots[0].warmup, 5);
  EXPECT_EQ(slots[1].warmup, 5);
  for (size_t i = 2; i < slots.size(); ++i) EXPECT_EQ(slots[i].warmup, kRewarmPasses);
  // No warm-up asked, none added.
  for (const auto& s : interleaved_rounds(2, 3, 0, 6)) EXPECT_EQ(s.warmup, 0);
}

TEST(InterleavedRounds, EveryCaseGetsAllItsPasses) {
  int total[2] = {0, 0};
  for (const auto& s : interleaved_rounds(2, 3, 1, 7)) total[s.case_index] += s.measured;
  EXPECT_EQ(total[0], 7);
  EXPECT_EQ(total[1], 7);
}

TEST(InterleavedRounds, DefaultInterleavesOnlyComparisons) {
  EXPECT_EQ(default_rounds(1, 100), 1);
  EXPECT_EQ(default_rounds(2, 100), 5);
  EXPECT_EQ(default_rounds(3, 3), 3);
  EXPECT_EQ(default_rounds(2, 1), 1);
}
