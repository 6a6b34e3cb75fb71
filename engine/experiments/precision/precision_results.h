// What the precision lab measures, as plain data (no LibTorch): the accumulation cases and
// the dtypes autocast gives each tensor. Schemas, views and files use these.
#pragma once

#include <cstdint>
#include <string>

namespace stepscope::precision {

enum class AccumulationMethod { naive, kahan, pairwise };
// "naive", "kahan", "pairwise".
std::string to_string(AccumulationMethod method);

struct AccumulationCase {
  std::string name;         // short id: "fp32+=fp32", "fp16+=fp16", "fp32+=fp16", "fp16 kahan", ...
  std::string accumulator;  // dtype of the running sum, e.g. "float16"
  std::string addend;       // dtype of the value added; "float16->float32" when converted first
  AccumulationMethod method = AccumulationMethod::naive;
  int64_t additions = 1000;
  double addend_value = 0.01;  // the value as written in the source, before rounding to a dtype
  double result = 0;           // the accumulator's final value (exact: every low-precision number is a double)
  double exact = 0;            // additions * addend_value
  double abs_error = 0;        // |result - exact|
  std::string explanation;     // one sentence on why the result is what it is
};

enum class TensorKind { parameter, activation, logits, loss, gradient };
// "parameter", "activation", "logits", "loss", "gradient".
std::string to_string(TensorKind kind);

struct TensorDtype {
  std::string tensor;  // "fc1.weight", "fc1 output", "logits", "loss", "fc1.weight.grad"
  TensorKind kind = TensorKind::activation;
  std::string dtype;   // "float32", "float16", "bfloat16"
};

}  // namespace stepscope::precision
