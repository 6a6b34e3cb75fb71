// One row of the DDP experiments as an experiment case, run on every rank at once: the model
// (eager, or the fused engine's FusedTransformerLM) built from the same seed on every rank and
// rank 0's weights broadcast, AdamW with its state on every rank or sharded
// (DistributedOptimizer; the fused engine's unsharded one is FusedAdamW over its flat buffer),
// and each rank's distinct shard of a seeded global batch. A step is begin_step, forward,
// backward, finish (communication and its exposed part) and the optimizer, each timed on the
// host after the device is done. After the measured steps one more step, outside the means, is
// recorded for the overlap picture (StepTimelineRecorder). With --check, every rank then also
// trains one process's model of the same engine in-process on the whole global batches from
// the same initial weights, and the largest parameter difference is gathered (max).
// `combine_ranks` then gives every rank the row, each rank's own row and every rank's picture.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "distributed/communicator.h"
#include "experiments/ddp/ddp_timeline.h"
#include "experiments/ddp/ddp_types.h"
#include "experiments/experiment_case.h"
#include "runners/step_graphs.h"

namespace stepscope {

class EngineModel;
namespace compat {
class MatmulSmCarveout;
}

namespace distributed {
class GradientSync;
class DistributedOptimizer;
}  // namespace distributed
class StepTimelineRecorder;

class DdpCase final : public ExperimentCase {
 public:
  DdpCase(DdpConfig config, distributed::Communicator& comm);
  ~DdpCase() override;

  std::string label() const override { return describe(result_.config); }
  Device device() const override { return result_.config.device; }
  int warmup_steps() const override { return result_.config.warmup_steps; }
  int measured_steps() const override { return result_.config.measured_steps; }
  ObserverSpec observers() const override { return {false, result_.config.profile_memory}; }
  void check(DeviceBackend& backend) override;
  void prepare(DeviceBackend& backend, profiling::AllocationRecorder* memory) override;
  void run_step(const StepContext& step) override;
  void after_measuring(DeviceBackend& backend) override;
  void release() override;
  void finish(CaseEnd end) override;

  // This rank's view: its own means.
  const DdpResult& result() const { return result_; }
  // This rank's picture step (empty when the row did not get that far).
  const RankStepTimeline& timeline() const { return timeline_; }
  const std::string& timeline_note() const { return timeline_note_; }

 private:
  // Checks the memory estimate and builds the model; throws (an OOM result) on every rank when
  // any rank's estimate refuses or its build runs out of memory.
  void build_or_refuse(DeviceBackend& backend);
  struct StepTimes {
    double step = 0, forward = 0, backward = 0, comm = 0, exposed = 0, optimizer = 0;
    int64_t bytes = 0;  // the gradient collectives'
  };
  StepTimes train_step(StepTimelineRecorder* picture, profiling::AllocationRecorder* memory);
  // Step `step`'s rows of the global batch into inputs_ and targets_ (where the graphs read them).
  void load_batch(int step);
  // Whether this case replays CUDA graphs, and if it cannot, why (graphs_note_).
  void choose_graphs(const DeviceBackend& backend);
  // Captures forward, backward (with the hooks' collectives and their waits) and optimizer.
  void capture_step();
  // result_.memory from the record: the bytes at each DdpMemoryPoint of this rank.
  void read_memory(const profiling::AllocationLog& log);
  // What the memory timeline cannot tell from addresses alone: parameters, gradients (and the
  // buffers they are views of), the optimizer's state.
  void label_memory(profiling::AllocationRecorder& memory) const;
  void picture_step();
  double reference_difference();

  DdpResult result_;
  distributed::Communicator& comm_;
  DeviceBackend* backend_ = nullptr;
  std::unique_ptr<compat::MatmulSmCarveout> carveout_;  // config.sm_carveout, for the case
  std::unique_ptr<EngineModel> model_;
  std::vector<at::Tensor> initial_;  // with check: the weights after the broadcast
  std::unique_ptr<distributed::GradientSync> sync_;
  std::unique_ptr<distributed::DistributedOptimizer> optimizer_;
  // The fused engine under a sharded optimizer: its compute copy refreshed after each step.
  bool refresh_after_step_ = false;
  std::vector<StepTimes> steps_;
  int steps_run_ = 0;
  at::Tensor inputs_, targets_;  // this rank's batch, rewritten in place each step
  std::unique_ptr<StepGraphs> graphs_;
  std::string graphs_note_;  // why graphs are off, or what they change in the row
  bool capturing_ = false;   // no device synchronisation while a graph is being captured
  at::Tensor graph_loss_;
  int backward_done_ = -1, sync_done_ = -1;  // points in the backward graph
  int64_t graph_comm_bytes_ = 0;              // what the captured collectives carry
  RankStepTimeline timeline_;
  std::string timeline_note_;
};

// validate(), and what this build's backends cannot run: bf16 gradient reduction where Gloo sums
// no bf16 (ConfigError "reduce-dtype"). For launchers, before any rank starts; each rank's case
// asks its own group (Communicator::sums_bfloat16).
void check_runnable(const DdpConfig& config);

// Whether the buckets are slices of the fused model's gradient buffer, all-reduced where the
// projections' backward writes their gradients (no copy into buckets): fused, bucketed, the
// optimizer on every rank, gradients reduced in the type the model computes in (fp32 with
// fp32, bf16 with bf16). Its rows all-reduce the whole buffer, alignment padding included.
bool reduces_in_gradient_buffer(const DdpConfig& config);

// A row of the DDP experiments as every rank ends up holding it.
struct DdpRowSet {
  DdpResult combined;                     // status: any rank's failure; each time the slowest rank's
  std::vector<DdpResult> per_rank;        // rank r's own times at r
  std::vector<RankStepTimeline> timelines;  // every rank's picture step, by rank
};

// Every rank calls it after the case, with the same case order (it is collective); tensors go
// through `device` (the rank's GPU for NCCL).
DdpRowSet combine_ranks(const DdpCase& done, distributed::Communicator& comm, const c10::Device& device);

}  // namespace stepscope
