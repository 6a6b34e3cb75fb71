#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include "experiments/precision/accumulation.h"
#include "core/config_error.h"

namespace stepscope::precision {
namespace {

std::string g9(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", x);
  return text;
}

AccumulationCase find_case(const std::vector<AccumulationCase>& cases, const std::string& name) {
  for (const auto& c : cases) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no case named " + name);
}

// The plain loops, with C++ scalar types instead of tensors: c10::Half and c10::BFloat16
// compute each operation in float and round the result back, one rounding per operation.
template <typename Low>
double naive_low(int n) {
  Low s(0.0f);
  const Low x(0.01f);
  for (int i = 0; i < n; ++i) s = s + x;
  return static_cast<float>(s);
}

template <typename Low>
double kahan_low(int n) {
  Low s(0.0f), c(0.0f);
  const Low x(0.01f);
  for (int i = 0; i < n; ++i) {
    const Low y = x - c;
    const Low t = s + y;
    c = (t - s) - y;
    s = t;
  }
  return static_cast<float>(s);
}

template <typename Low>
Low pairwise_low(const std::vector<Low>& values, size_t begin, size_t end) {
  if (end - begin == 1) return values[begin];
  const size_t mid = begin + (end - begin) / 2;
  return pairwise_low(values, begin, mid) + pairwise_low(values, mid, end);
}

template <typename Low>
double pairwise_low(int n) {
  const std::vector<Low> values(n, Low(0.01f));
  return static_cast<float>(pairwise_low(values, 0, values.size()));
}

TEST(PrecisionAccumulation, SeedCasesGiveThePublishedValues) {
  const auto cases = accumulation_cases();
  ASSERT_GE(cases.size(), 4u);
  // The handout's four snippets, in its order, with the values PyTorch prints.
  EXPECT_EQ(cases[0].name, "fp32+=fp32");
  EXPECT_EQ(cases[1].name, "fp16+=fp16");
  EXPECT_EQ(cases[2].name, "fp32+=fp16");
  EXPECT_EQ(cases[3].name, "fp32+=fp16->fp32");
  EXPECT_EQ(g9(cases[0].result), "10.0001335");
  EXPECT_EQ(g9(cases[1].result), "9.953125");
  EXPECT_EQ(g9(cases[2].result), "10.0021362");
  EXPECT_EQ(g9(cases[3].result), "10.0021362");
}

TEST(PrecisionAccumulation, CasesDescribeTheirDtypesAndErrors) {
  const auto cases = accumulation_cases();
  const auto converted = find_case(cases, "fp32+=fp16->fp32");
  EXPECT_EQ(converted.accumulator, "float32");
  EXPECT_EQ(converted.addend, "float16->float32");
  const auto bf16 = find_case(cases, "bf16+=bf16");
  EXPECT_EQ(bf16.accumulator, "bfloat16");
  EXPECT_EQ(bf16.addend, "bfloat16");
  EXPECT_EQ(find_case(cases, "fp32+=bf16").addend, "bfloat16");
  EXPECT_EQ(find_case(cases, "fp16 kahan").method, AccumulationMethod::kahan);
  EXPECT_EQ(find_case(cases, "bf16 pairwise").method, AccumulationMethod::pairwise);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.additions, 1000);
    EXPECT_EQ(c.addend_value, 0.01);
    EXPECT_EQ(c.exact, 10.0);
    EXPECT_EQ(c.abs_error, std::fabs(c.result - 10.0));
    ASSERT_FALSE(c.explanation.empty());
    EXPECT_EQ(c.explanation.back(), '.');
    EXPECT_NE(c.explanation.find(g9(c.result)), std::string::npos) << c.explanation;
  }
  EXPECT_EQ(to_string(AccumulationMethod::naive), "naive");
  EXPECT_EQ(to_string(AccumulationMethod::kahan), "kahan");
  EXPECT_EQ(to_string(AccumulationMethod::pairwise), "pairwise");
}

TEST(PrecisionAccumulation, TensorsRoundLikeScalarLoops) {
  const auto cases = accumulation_cases();
  float fp32 = 0.0f;
  for (int i = 0; i < 1000; ++i) fp32 += 0.01f;
  EXPECT_EQ(find_case(cases, "fp32+=fp32").result, fp32);

  // Promotion and explicit conversion are the same float32 addition of the float16 value.
  float promoted = 0.0f;
  const float half_addend = static_cast<float>(c10::Half(0.01f));
  for (int i = 0; i < 1000; ++i) promoted += half_addend;
  EXPECT_EQ(find_case(cases, "fp32+=fp16").result, promoted);
  EXPECT_EQ(find_case(cases, "fp32+=fp16->fp32").result, promoted);

  float promoted_bf16 = 0.0f;
  const float bf16_addend = static_cast<float>(c10::BFloat16(0.01f));
  for (int i = 0; i < 1000; ++i) promoted_bf16 += bf16_addend;
  EXPECT_EQ(find_case(cases, "fp32+=bf16").result, promoted_bf16);

  EXPECT_EQ(find_case(cases, "fp16+=fp16").result, naive_low<c10::Half>(1000));
  EXPECT_EQ(find_case(cases, "bf16+=bf16").result, naive_low<c10::BFloat16>(1000));
}

TEST(PrecisionAccumulation, Bf16StallsWhereItsSpacingExceedsTwiceTheAddend) {
  // bfloat16 keeps 8 significant bits: from 4 on its spacing is 2^-5 = 0.03125, and adding
  // 0.01 (less than half of it) rounds back to the same number.
  EXPECT_EQ(find_case(accumulation_cases(), "bf16+=bf16").result, 4.0);
}

TEST(PrecisionAccumulation, KahanRecoversWhatTheNaiveLoopLoses) {
  const auto cases = accumulation_cases();
  struct Expectation {
    const char* low;
    double stored_sum;  // 1000 x the stored addend
    double spacing;     // of the dtype near 10
    double scalar_kahan;
  };
  const Expectation expectations[] = {
      {"fp16", 1000 * static_cast<double>(static_cast<float>(c10::Half(0.01f))), 1.0 / 128, kahan_low<c10::Half>(1000)},
      {"bf16", 1000 * static_cast<double>(static_cast<float>(c10::BFloat16(0.01f))), 1.0 / 16,
       kahan_low<c10::BFloat16>(1000)},
  };
  for (const auto& e : expectations) {
    SCOPED_TRACE(e.low);
    const auto naive = find_case(cases, std::string(e.low) + "+=" + e.low);
    const auto kahan = find_case(cases, std::string(e.low) + " kahan");
    EXPECT_EQ(kahan.result, e.scalar_kahan);
    // Compensation leaves at most one rounding of the final sum to the dtype.
    EXPECT_LE(std::fabs(kahan.result - e.stored_sum), e.spacing / 2);
    EXPECT_LT(kahan.abs_error, naive.abs_error / 5);
  }
}

TEST(PrecisionAccumulation, PairwiseMatchesARecursiveScalarSum) {
  const auto cases = accumulation_cases();
  const auto fp16 = find_case(cases, "fp16 pairwise");
  const auto bf16 = find_case(cases, "bf16 pairwise");
  EXPECT_EQ(fp16.result, pairwise_low<c10::Half>(1000));
  EXPECT_EQ(bf16.result, pairwise_low<c10::BFloat16>(1000));
  EXPECT_LT(fp16.abs_error, find_case(cases, "fp16+=fp16").abs_error / 5);
  EXPECT_LT(bf16.abs_error, find_case(cases, "bf16+=bf16").abs_error / 5);
  // About ten roundings per value, each at most half a spacing of the partial sum.
  EXPECT_LE(std::fabs(fp16.result - 1000 * static_cast<double>(static_cast<float>(c10::Half(0.01f)))), 4.0 / 128);
}

TEST(PrecisionAccumulation, OtherCountsAndAddends) {
  const auto cases = accumulation_cases(8, 0.5);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    // 0.5 and every partial sum up to 4 are exact in each dtype, whatever the method.
    EXPECT_EQ(c.result, 4.0);
    EXPECT_EQ(c.abs_error, 0.0);
  }
  EXPECT_THROW(accumulation_cases(0), ConfigError);
  EXPECT_THROW(accumulation_cases(10, -1.0), ConfigError);
}

}  // namespace
}  // namespace stepscope::precision
