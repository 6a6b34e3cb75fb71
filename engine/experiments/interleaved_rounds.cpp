#include "experiments/interleaved_rounds.h"

#include <algorithm>
#include <stdexcept>

namespace stepscope {

std::vector<int> passes_per_round(int measured, int rounds) {
  if (rounds < 1 || rounds > measured) throw std::invalid_argument("rounds must be between 1 and the measured passes");
  std::vector<int> shares(static_cast<size_t>(rounds), measured / rounds);
  for (int r = 0; r < measured % rounds; ++r) ++shares[static_cast<size_t>(r)];
  return shares;
}

std::vector<RoundSlot> interleaved_rounds(int cases, int rounds, int warmup, int measured) {
  const std::vector<int> shares = passes_per_round(measured, rounds);
  std::vector<RoundSlot> slots;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < cases; ++i) {
      const int c = (r + i) % cases;
      slots.push_back({c, r, r == 0 ? warmup : std::min(warmup, kRewarmPasses), shares[static_cast<size_t>(r)]});
    }
  }
  return slots;
}

int default_rounds(int implementations, int measured) {
  constexpr int kComparisonRounds = 5;
  return implementations > 1 ? std::max(1, std::min(kComparisonRounds, measured)) : 1;
}

}  // namespace stepscope
