// One row of the collective benchmark as an experiment case, run on every rank at once. As
// nccl-tests does, the collectives of a phase are timed together on the device and the time is
// their mean: one warm-up step of warmup_iters collectives, one measured step of iters. On NCCL
// they are issued back to back (each one's launch overlaps the one before, as a training loop's
// do); Gloo runs them one at a time (its threads could otherwise run two on the same buffer).
// After the measured step the result is checked against the expected values (nccl-tests' #wrong). `combine_ranks` then gives every rank
// the row: the slowest rank's time, the wrong elements of all ranks.
#pragma once

#include <memory>
#include <new>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "distributed/communicator.h"
#include "experiments/collectives/collective_types.h"
#include "experiments/experiment_case.h"

namespace stepscope {

class StepClock;

class CollectiveCase final : public ExperimentCase {
 public:
  CollectiveCase(CollectiveConfig config, distributed::Communicator& comm);
  ~CollectiveCase() override;

  std::string label() const override { return describe(result_.config); }
  Device device() const override;
  int warmup_steps() const override { return result_.config.warmup_iters > 0 ? 1 : 0; }
  int measured_steps() const override { return 1; }
  // ConfigError for what this LibTorch's backend cannot do (Gloo's bf16 in 1.13).
  void check(DeviceBackend& backend) override;
  void prepare(DeviceBackend& backend, profiling::AllocationRecorder* memory) override;
  void run_step(const StepContext& step) override;
  void after_measuring(DeviceBackend& backend) override;
  void release() override;
  void finish(CaseEnd end) override;

  // This rank's view: its own time and wrong elements.
  const CollectiveResult& result() const { return result_; }

 private:
  void fill_inputs();
  std::unique_ptr<distributed::PendingCollective> launch();
  int64_t count_wrong() const;

  CollectiveResult result_;
  distributed::Communicator& comm_;
  std::unique_ptr<StepClock> clock_;
  at::Tensor input_, output_;
  std::vector<int64_t> step_ns_;
};

// Every rank calls it after the case, with the same case order: all-reduces status, the mean
// time (max) and #wrong (sum), so each rank holds the whole row. `device` is where the
// communicator's tensors live.
CollectiveResult combine_ranks(const CollectiveResult& local, distributed::Communicator& comm, const Device& device);

// Throws ConfigError for what this build's backends cannot do (Gloo's bf16 in LibTorch 1.13,
// NCCL without CUDA), before any worker starts.
void check_runnable(const CollectiveConfig& config);

// A peer ran out of memory preparing the case: this rank reports OOM too (a result, as the
// harness counts any std::bad_alloc).
class PeerOutOfMemory : public std::bad_alloc {
 public:
  const char* what() const noexcept override { return "another rank ran out of memory preparing the buffers"; }
};

}  // namespace stepscope
