#include "experiments/precision/accumulation.h"

#include <cmath>
#include <cstdio>

#include <torch/torch.h>

#include "core/config_error.h"

namespace stepscope::precision {

std::string dtype_name(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kFloat: return "float32";
    case c10::kHalf: return "float16";
    case c10::kBFloat16: return "bfloat16";
    case c10::kDouble: return "float64";
    default: return c10::toString(dtype);
  }
}

namespace {

using torch::Tensor;

// What `torch.tensor(value, dtype=dtype)` holds: a 0-dim tensor on the CPU.
Tensor scalar(double value, c10::ScalarType dtype) {
  return torch::scalar_tensor(value, torch::TensorOptions().dtype(dtype));
}

// s = torch.tensor(0, dtype=accumulator)
// for i in range(n): s += torch.tensor(value, dtype=addend)          (or  x.type(accumulator))
// In-place add of a 0-dim tensor: PyTorch's promotion makes fp32 += fp16 an fp32 addition.
Tensor naive_sum(c10::ScalarType accumulator, c10::ScalarType addend, bool convert_first, int64_t n,
                 double value) {
  Tensor s = scalar(0, accumulator);
  for (int64_t i = 0; i < n; ++i) {
    Tensor x = scalar(value, addend);
    if (convert_first) x = x.to(accumulator);
    s += x;
  }
  return s;
}

// Kahan's compensated sum with every variable a 0-dim tensor of `dtype`, so each of the four
// operations per step is rounded to that dtype; c holds the part of y that t could not keep.
Tensor kahan_sum(c10::ScalarType dtype, int64_t n, double value) {
  const Tensor x = scalar(value, dtype);
  Tensor s = scalar(0, dtype);
  Tensor c = scalar(0, dtype);
  for (int64_t i = 0; i < n; ++i) {
    const Tensor y = x - c;
    const Tensor t = s + y;
    c = (t - s) - y;
    s = t;
  }
  return s;
}

// Recursive halving (first half gets n/2 rounded down); each node's addition of two 0-dim
// tensors rounds to the values' dtype.
Tensor pairwise_sum(const Tensor& values) {
  const int64_t n = values.size(0);
  if (n == 1) return values[0];
  const int64_t half = n / 2;
  return pairwise_sum(values.narrow(0, 0, half)) + pairwise_sum(values.narrow(0, half, n - half));
}

int significand_bits(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kHalf: return 11;
    case c10::kBFloat16: return 8;
    case c10::kDouble: return 53;
    default: return 24;
  }
}

// Distance between adjacent representable numbers of `dtype` around |x| (normal range).
double spacing(double x, c10::ScalarType dtype) {
  int exponent = 0;
  std::frexp(std::fabs(x), &exponent);  // |x| = m * 2^exponent, m in [0.5, 1)
  return std::ldexp(1.0, exponent - significand_bits(dtype));
}

std::string g9(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", x);
  return text;
}

std::string short_name(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kHalf: return "fp16";
    case c10::kBFloat16: return "bf16";
    default: return "fp32";
  }
}

AccumulationCase make_case(std::string name, c10::ScalarType accumulator, std::string addend,
                           AccumulationMethod method, int64_t n, double value, const Tensor& sum) {
  AccumulationCase c;
  c.name = std::move(name);
  c.accumulator = dtype_name(accumulator);
  c.addend = std::move(addend);
  c.method = method;
  c.additions = n;
  c.addend_value = value;
  c.result = sum.item<double>();
  c.exact = static_cast<double>(n) * value;
  c.abs_error = std::fabs(c.result - c.exact);
  return c;
}

std::string low_precision_naive_explanation(c10::ScalarType dtype, double stored, double result) {
  const std::string name = dtype_name(dtype);
  const double gap = spacing(result, dtype);
  if (gap / 2 > stored) {
    return name + " keeps " + std::to_string(significand_bits(dtype)) + " significant bits: at " + g9(result) +
           " its spacing is " + g9(gap) + ", more than twice the stored addend " + g9(stored) +
           ", so every further addition rounds back to the same value and the sum stalls at " + g9(result) + ".";
  }
  return name + " keeps " + std::to_string(significand_bits(dtype)) +
         " significant bits, so each addition of the stored addend " + g9(stored) +
         " is rounded to a multiple of the spacing at the running sum (" + g9(gap) + " near " + g9(result) +
         "), gaining or losing up to half a spacing every time, and the sum drifts to " + g9(result) + ".";
}

}  // namespace

std::vector<AccumulationCase> accumulation_cases(int64_t additions, double addend_value) {
  if (additions < 1) throw ConfigError("the number of additions must be at least 1", "additions");
  if (!(addend_value > 0) || !std::isfinite(addend_value)) throw ConfigError("the addend must be a positive number");
  const int64_t n = additions;
  const double v = addend_value;
  const std::string count = std::to_string(n);
  const auto stored = [v](c10::ScalarType dtype) { return scalar(v, dtype).item<double>(); };
  std::vector<AccumulationCase> cases;

  auto fp32 = make_case("fp32+=fp32", c10::kFloat, "float32", AccumulationMethod::naive, n, v,
                        naive_sum(c10::kFloat, c10::kFloat, false, n, v));
  fp32.explanation = "float32 stores " + g9(v) + " as " + g9(stored(c10::kFloat)) +
                     " and rounds every running sum to 24 significant bits (spacing " +
                     g9(spacing(fp32.exact, c10::kFloat)) + " near " + g9(fp32.exact) + "), so the " + count +
                     " small rounding errors add up to only " + g9(fp32.abs_error) + " and the sum ends at " +
                     g9(fp32.result) + ".";
  cases.push_back(fp32);

  for (const auto low : {c10::kHalf, c10::kBFloat16}) {
    const std::string low_short = short_name(low);
    const std::string low_name = dtype_name(low);
    const Tensor naive_low = naive_sum(low, low, false, n, v);
    auto same = make_case(low_short + "+=" + low_short, low, low_name, AccumulationMethod::naive, n, v, naive_low);
    same.explanation = low_precision_naive_explanation(low, stored(low), same.result);
    cases.push_back(same);

    auto promoted = make_case("fp32+=" + low_short, c10::kFloat, low_name, AccumulationMethod::naive, n, v,
                              naive_sum(c10::kFloat, low, false, n, v));
    promoted.explanation = low_name + " stores " + g9(v) + " as " + g9(stored(low)) +
                           " and PyTorch promotes float32 += " + low_name + " to a float32 addition, so the sum " +
                           g9(promoted.result) + " is accurate for that addend (" + count + " x " + g9(stored(low)) +
                           " = " + g9(n * stored(low)) +
                           "): the error is the addend's rounding, not the accumulation's.";
    cases.push_back(promoted);

    if (low == c10::kHalf) {
      // The seeds' fourth case: the explicit conversion is exact, so it must match the promotion.
      auto converted = make_case("fp32+=fp16->fp32", c10::kFloat, "float16->float32", AccumulationMethod::naive, n,
                                 v, naive_sum(c10::kFloat, low, true, n, v));
      converted.explanation = "Converting the float16 value to float32 before adding is exact, so this is the same "
                              "float32 addition as the promoted case and gives the same " +
                              g9(converted.result) + ".";
      cases.push_back(converted);
    }
  }

  const auto result_of = [&cases](const std::string& name) {
    for (const auto& c : cases) {
      if (c.name == name) return c.result;
    }
    return std::nan("");
  };
  for (const auto low : {c10::kHalf, c10::kBFloat16}) {
    const std::string low_name = dtype_name(low);
    const double true_sum = n * stored(low);  // exact sum of the stored addends
    const double naive_result = result_of(short_name(low) + "+=" + short_name(low));

    auto kahan = make_case(short_name(low) + " kahan", low, low_name, AccumulationMethod::kahan, n, v,
                           kahan_sum(low, n, v));
    kahan.explanation = "Kahan summation keeps each addition's rounding error in a second " + low_name +
                        " variable and feeds it back into the next addend, so with every step still rounded to " +
                        low_name + " the sum ends at " + g9(kahan.result) + ", " +
                        g9(std::fabs(kahan.result - true_sum)) +
                        " from the exact sum of the stored addends (" + g9(true_sum) + "), against " +
                        g9(naive_result) + " for the plain loop.";
    cases.push_back(kahan);

    const Tensor values = torch::full({n}, v, torch::TensorOptions().dtype(low));
    auto pairwise = make_case(short_name(low) + " pairwise", low, low_name, AccumulationMethod::pairwise, n, v,
                              pairwise_sum(values));
    pairwise.explanation = "Pairwise summation adds the values in a balanced tree (halves, then quarters, ...), so "
                           "each value goes through about log2(" + count + ") = " +
                           std::to_string(static_cast<int>(std::ceil(std::log2(static_cast<double>(n))))) +
                           " roundings instead of up to " + count + ", and the " + low_name + " sum ends at " +
                           g9(pairwise.result) + " against " + g9(naive_result) + " for the plain loop.";
    cases.push_back(pairwise);
  }
  return cases;
}

}  // namespace stepscope::precision
