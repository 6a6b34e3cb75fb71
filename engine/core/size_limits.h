// The largest sizes a configuration may ask for, checked before anything is built.
#pragma once

#include <cstdint>

namespace stepscope {

// Every size of a model or a run (width, layers, heads, vocabulary, tokens) is at most this,
// so products of sizes stay far inside 64 bits; real models are well below it.
inline constexpr int64_t kMaxDimension = int64_t{1} << 24;
// And its parameters at most this many: 16 bytes each (weights, gradient, AdamW state) still fit.
inline constexpr int64_t kMaxParameters = int64_t{1} << 58;

}  // namespace stepscope
