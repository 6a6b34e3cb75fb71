// The Attention tab's reading: the memory accounting of the smallest configuration that ran
// out of memory against the seeds' formulas worked by hand, and the growth of what is kept for
// the backward read off measured rows.
#include <gtest/gtest.h>

#include "attention/attention_memory.h"
#include "experiments/attention/attention_reading.h"
#include "experiments/attention/attention_schema.h"
#include "schema/schema.h"

using namespace stepscope;

namespace {

AttentionResult row(AttentionImpl impl, int64_t seq, int64_t d, RunStatus status, int64_t mem_before_backward = -1) {
  AttentionResult r;
  r.config.impl = impl;
  r.config.batch = 8;
  r.config.heads = 1;
  r.config.head_dim = d;
  r.config.seq = seq;
  r.config.precision = Precision::fp32;
  r.status = status;
  if (status == RunStatus::ok) {
    r.forward.count = r.backward.count = r.forward_backward.count = 10;
    r.forward.mean_ms = 1;
    r.memory_before_backward_bytes = mem_before_backward;
  }
  return r;
}

constexpr int64_t kMiB = 1024 * 1024;

}  // namespace

TEST(AttentionMemory, NaiveAtTheSeedsFirstOutOfMemoryShapeByHand) {
  // b 8, no heads, s 16384, d 16, fp32: P alone is 8 * 16384^2 * 4 bytes = 8 GiB.
  AttentionConfig c;
  c.impl = AttentionImpl::naive;
  c.batch = 8;
  c.heads = 1;
  c.seq = 16384;
  c.head_dim = 16;
  c.precision = Precision::fp32;
  const AttentionMemory m = attention_memory(c);
  EXPECT_EQ(m.inputs.bytes, 4 * 8 * 16384 * 16 * 4);  // 32 MiB
  EXPECT_EQ(m.saved.bytes, 8LL * 16384 * 16 * 4 + 8LL * 16384 * 16384 * 4);
  EXPECT_EQ(m.gradients.bytes, 3 * 8 * 16384 * 16 * 4);
  EXPECT_EQ(m.transient.bytes, 2 * 8LL * 16384 * 16384 * 4);
  EXPECT_EQ(m.peak_bytes(), m.inputs.bytes + m.saved.bytes + m.gradients.bytes + m.transient.bytes);
  EXPECT_EQ(m.saved.formula, "b*h*s*d*e + b*h*s^2*e");
  c.impl = AttentionImpl::flash;
  EXPECT_EQ(attention_memory(c).saved.bytes, 8 * 16384 * 16 * 4 + 8 * 16384 * 4);  // O and lse
}

TEST(AttentionReading, RowsReadBackFromTheTable) {
  const auto table = attention_schema().table({row(AttentionImpl::flash, 4096, 64, RunStatus::ok, 40 * kMiB),
                                               row(AttentionImpl::naive, 16384, 16, RunStatus::out_of_memory)});
  const auto rows = attention_rows(table);
  ASSERT_EQ(rows.size(), size_t{2});
  EXPECT_EQ(rows[0].config.impl, AttentionImpl::flash);
  EXPECT_EQ(rows[0].config.seq, 4096);
  EXPECT_EQ(rows[0].config.head_dim, 64);
  EXPECT_EQ(rows[0].config.batch, 8);
  EXPECT_EQ(rows[0].memory_before_backward_bytes, 40 * kMiB);
  EXPECT_EQ(rows[1].status, RunStatus::out_of_memory);
  EXPECT_EQ(rows[1].config.precision, Precision::fp32);
  schema::Table other = table;
  other.schema = "bench";
  EXPECT_TRUE(attention_rows(other).empty());
}

TEST(AttentionReading, SmallestOutOfMemoryIsTheSmallestEstimate) {
  const std::vector<AttentionResult> rows{row(AttentionImpl::naive, 16384, 128, RunStatus::out_of_memory),
                                          row(AttentionImpl::naive, 16384, 16, RunStatus::out_of_memory),
                                          row(AttentionImpl::naive, 8192, 16, RunStatus::ok, 100),
                                          row(AttentionImpl::flash, 16384, 16, RunStatus::ok, 100)};
  const auto oom = smallest_out_of_memory(rows);
  ASSERT_TRUE(oom);
  EXPECT_EQ(oom->config.seq, 16384);
  EXPECT_EQ(oom->config.head_dim, 16);
  EXPECT_FALSE(smallest_out_of_memory({rows[2], rows[3]}));
}

TEST(AttentionReading, GrowthExponentsFromMeasuredRowsWhateverTheDeviceHeldBefore) {
  // A GPU holds a library workspace before any case (64 MiB here); what a case adds grows as
  // s^2 for naive and s for flash, so the exponents are 2 and 1 exactly.
  const int64_t base = 64 * kMiB;
  const auto naive = [&](int64_t s) { return row(AttentionImpl::naive, s, 16, RunStatus::ok, base + 32 * s * s); };
  const auto flash = [&](int64_t s) { return row(AttentionImpl::flash, s, 16, RunStatus::ok, base + 4096 * s); };
  const std::vector<AttentionResult> rows{naive(1024), naive(2048), naive(3000), flash(1024), flash(2048), flash(4096),
                                          row(AttentionImpl::flash, 8192, 16, RunStatus::out_of_memory)};
  const auto growth = memory_growth(rows);
  ASSERT_EQ(growth.size(), size_t{2});
  EXPECT_EQ(growth[0].impl, AttentionImpl::naive);
  EXPECT_NEAR(growth[0].exponent, 2.0, 1e-6);
  EXPECT_EQ(growth[1].impl, AttentionImpl::flash);
  EXPECT_NEAR(growth[1].exponent, 1.0, 1e-6);
  EXPECT_EQ(growth[1].from.seq, 1024);
  EXPECT_EQ(growth[1].to.seq, 4096);  // the OOM row is not a measurement
  EXPECT_TRUE(memory_growth({naive(1024), naive(2048)}).empty());  // two lengths cannot separate the base
}

TEST(AttentionReading, TextGivesFormulaBesideNumber) {
  AttentionResult oom = row(AttentionImpl::naive, 16384, 16, RunStatus::out_of_memory);
  oom.message = "CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total capacity of 79.18 GiB of which 1 GiB is free.";
  const auto table = attention_schema().table({row(AttentionImpl::naive, 8192, 16, RunStatus::ok, 3 * 1024 * kMiB), oom});
  const std::string text = attention_memory_reading(table);
  EXPECT_NE(text.find("naive b 8 h 1 d 16 seq 16384 fp32"), std::string::npos) << text;
  EXPECT_NE(text.find("b = 8, h = 1, s = 16384, d = 16, e = 4 bytes"), std::string::npos) << text;
  EXPECT_NE(text.find("The device said: CUDA out of memory. Tried to allocate 8.00 GiB.\n"), std::string::npos) << text;
  // The probabilities' term, 8 * 16384^2 * 4 bytes + O's 8 MiB.
  EXPECT_NE(text.find("b*h*s*d*e + b*h*s^2*e = 8.01 GiB"), std::string::npos) << text;
  EXPECT_NE(text.find("2*b*h*s^2*e = 16.0 GiB"), std::string::npos) << text;
  EXPECT_EQ(attention_memory_reading(attention_schema().table({})), "");
}
