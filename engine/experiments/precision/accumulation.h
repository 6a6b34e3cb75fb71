// The handout's mixed_precision_accumulation experiment: add 0.01 a thousand times with
// different accumulator and addend dtypes, plus compensated (Kahan) and pairwise sums in
// the low-precision dtypes. Every sum is computed with tensor arithmetic, so each
// intermediate is rounded exactly as PyTorch rounds it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <c10/core/ScalarType.h>

#include "experiments/precision/precision_results.h"

namespace stepscope::precision {

// AccumulationCase and AccumulationMethod (with to_string) are plain data in
// precision_results.h, so schemas and views need no LibTorch header.

// PyTorch's name of a dtype without "torch.": "float32", "float16", "bfloat16", ...
std::string dtype_name(c10::ScalarType dtype);

// The seeds' four cases first (fp32+=fp32, fp16+=fp16, fp32+=fp16, fp32+=fp16->fp32), then
// bf16+=bf16, fp32+=bf16, and Kahan and pairwise sums in fp16 and bf16. Runs on the CPU,
// as the handout's snippet does.
std::vector<AccumulationCase> accumulation_cases(int64_t additions = 1000, double addend_value = 0.01);

}  // namespace stepscope::precision
