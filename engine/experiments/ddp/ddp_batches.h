// The DDP experiments' data: step s's global batch (batch x ranks sequences), drawn from the
// run's seed the same on every rank and for the one-process reference; rank r trains rows
// [r*batch, (r+1)*batch).
#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "experiments/ddp/ddp_types.h"

namespace stepscope {

struct DdpBatch {
  at::Tensor inputs, targets;  // int64 [rows, context]
};

// On the CPU.
DdpBatch global_batch(const DdpConfig& config, int step);
// `rows` rows of `whole` from `first` on, copied to `device`.
DdpBatch rank_rows(const DdpBatch& whole, int64_t first, int64_t rows, const c10::Device& device);

}  // namespace stepscope
