// What the distributed experiments need of a process group: the collectives on tensors, started
// asynchronously and waited for. Behind this interface the all-reduce benchmark, the DDP variants
// and sharding are tested on the CPU with Gloo, and an in-process fake; c10d is one implementation.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <memory>
#include <string>

#include "core/comm_backend.h"

namespace stepscope::distributed {

using stepscope::CommBackend;

// average: the sum divided by the ranks inside the collective (NCCL's ncclAvg), where
// Communicator::averages() says the backend has it.
enum class ReduceOp { sum, max, average };

// A collective in flight; its tensors hold the result once wait() returns.
class PendingCollective {
 public:
  virtual ~PendingCollective() = default;
  // Blocks until done (Gloo), or makes the current CUDA stream wait for it (NCCL). Throws what
  // the backend threw: a peer that left, a timeout.
  virtual void wait() = 0;
  // Calls `done` (maybe on a backend thread, maybe at once) when the collective completes on
  // the host's side; false where the backend cannot tell before wait() returns.
  virtual bool call_when_done(std::function<void()> done) {
    (void)done;
    return false;
  }
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual CommBackend backend() const = 0;

  // In place, on every rank.
  virtual std::unique_ptr<PendingCollective> all_reduce(at::Tensor& tensor, ReduceOp op = ReduceOp::sum) = 0;
  // `input` has size() x output.numel() elements; this rank gets the reduction of its slice.
  // In place when `output` is `input`'s own slice (rank x output.numel() on): then the rest of
  // `input` is left undefined.
  virtual std::unique_ptr<PendingCollective> reduce_scatter(at::Tensor& output, const at::Tensor& input) = 0;
  // `output` has size() x input.numel() elements, rank r's input at slice r. In place when
  // `input` is `output`'s own slice (rank x input.numel() on).
  virtual std::unique_ptr<PendingCollective> all_gather(at::Tensor& output, const at::Tensor& input) = 0;
  virtual std::unique_ptr<PendingCollective> broadcast(at::Tensor& tensor, int root) = 0;
  virtual void barrier() = 0;
  // Whether reduce_scatter is the backend's own (false: an all-reduce and this rank's slice).
  virtual bool native_reduce_scatter() const = 0;
  // Whether all_reduce and reduce_scatter sum bf16 tensors (Gloo in LibTorch 1.13 does not).
  virtual bool sums_bfloat16() const { return true; }
  // Whether all_reduce takes ReduceOp::average (NCCL; Gloo has no average).
  virtual bool averages() const { return false; }
};

}  // namespace stepscope::distributed
