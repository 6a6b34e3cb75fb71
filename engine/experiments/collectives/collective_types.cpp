#include "experiments/collectives/collective_types.h"

#include "core/device.h"
#include "distributed/launch_env.h"
#include "core/config_error.h"
#include "core/size_limits.h"

namespace stepscope {

std::string to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return "allreduce";
    case CollectiveOp::reduce_scatter: return "reducescatter";
    case CollectiveOp::all_gather: return "allgather";
    case CollectiveOp::broadcast: return "broadcast";
  }
  return "allreduce";
}

CollectiveOp parse_collective_op(const std::string& text) {
  for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
                          CollectiveOp::broadcast}) {
    if (text == to_string(op)) return op;
  }
  throw ConfigError("unknown collective '" + text + "' (use allreduce, reducescatter, allgather or broadcast)", "op");
}

double bus_bandwidth_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::all_reduce: return 2 * (n - 1) / n;
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_gather: return (n - 1) / n;
    case CollectiveOp::broadcast: return 1;
  }
  return 1;
}

int64_t element_bytes_of(Precision dtype) { return dtype == Precision::fp32 ? 4 : 2; }

int64_t element_count(const CollectiveConfig& c) {
  int64_t count = c.size_bytes / element_bytes_of(c.dtype);
  if (c.op == CollectiveOp::reduce_scatter || c.op == CollectiveOp::all_gather) count -= count % c.ranks;
  return count;
}

int64_t collective_memory_bytes(const CollectiveConfig& c) {
  const int64_t full = element_count(c) * element_bytes_of(c.dtype);
  const int64_t slice = full / c.ranks;
  int64_t buffers = full;  // all-reduce and broadcast: one tensor
  if (c.op == CollectiveOp::reduce_scatter) buffers = full + slice + (c.backend == CommBackend::gloo ? full : 0);
  if (c.op == CollectiveOp::all_gather) buffers = full + slice;
  // Gloo reduces and receives through buffers of its own, as large as the tensor.
  const int64_t scratch = c.backend == CommBackend::gloo ? full : 0;
  return buffers + scratch;
}

void validate(const CollectiveConfig& c) {
  if (c.ranks < 1 || c.ranks > distributed::kMaxRanks) {
    throw ConfigError("ranks must be between 1 and " + std::to_string(distributed::kMaxRanks), "nproc");
  }
  if (c.ranks_on_host < 1 || c.ranks_on_host > c.ranks) {
    throw ConfigError("ranks on this machine must be between 1 and the job's " + std::to_string(c.ranks), "nproc");
  }
  if (c.size_bytes < 1) throw ConfigError("size must be positive", "sizes");
  if (c.size_bytes > (int64_t{1} << 40)) throw ConfigError("size must be at most 1 TiB", "sizes");
  if (element_count(c) < 1) {
    throw ConfigError("size " + std::to_string(c.size_bytes) + " B holds no element per rank of " + to_string(c.dtype),
                      "sizes");
  }
  if (c.warmup_iters < 0) throw ConfigError("warm-up iterations cannot be negative", "warmup");
  if (c.iters < 1) throw ConfigError("iterations must be at least 1", "iters");
  if (c.backend == CommBackend::nccl && !c.device.is_cuda()) {
    throw ConfigError("nccl runs on GPUs: use --device cuda (or --backend gloo on the CPU)", "backend");
  }
  if (c.backend == CommBackend::gloo && !c.device.is_cpu()) {
    throw ConfigError("gloo runs here on CPU tensors: use --device cpu (or --backend nccl on GPUs)", "backend");
  }
}

std::string describe(const CollectiveConfig& c) {
  return to_string(c.op) + " " + to_string(c.backend) + " x" + std::to_string(c.ranks) + " " +
         std::to_string(c.size_bytes) + " B " + to_string(c.dtype);
}

}  // namespace stepscope
