// Dense peak throughput of known NVIDIA GPUs, for model FLOPs utilisation.
#pragma once

#include <string>

#include "runners/bench_types.h"

namespace stepscope {

// TFLOP/s the device can reach in `precision` without sparsity: fp32 is the plain
// (non-tensor-core) rate, because TF32 stays off as in PyTorch's default; bf16/fp16 the
// tensor-core rate. 0 when the device is not in the table.
double peak_tflops(const std::string& device_name, Precision precision);

}  // namespace stepscope
