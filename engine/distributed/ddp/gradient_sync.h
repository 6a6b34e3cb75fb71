// Gradient synchronisation of data-parallel training: each variant of issue 11's DDP
// experiments leaves every rank holding the mean of the ranks' gradients, and records how long
// it communicated and how much of that was left after backward (the "exposed" part).
#pragma once

#include <ATen/core/Tensor.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "distributed/communicator.h"
#include "distributed/ddp/ddp_variant.h"
#include "distributed/ddp/gradient_shard.h"

namespace stepscope::distributed {

// One step's record, per rank.
struct SyncTimings {
  double comm_ms = 0;       // inside all-reduce calls and their waits (hooks included)
  double exposed_ms = 0;    // from finish()'s start (backward's end) to its end
  int64_t collectives = 0;  // all-reduces started
  int64_t bytes = 0;        // bytes all-reduced
};

// One gradient collective as the overlap picture shows it: started by this rank, completed on
// the host's side (its backend's completion, else the return of its wait).
struct CollectiveSpan {
  int64_t index = 0;  // in start order within the step
  int64_t bytes = 0;
  std::chrono::steady_clock::time_point start, done;
};

// A model that lays its gradients out in one flat buffer of the reduce type (the fused engine's
// gradient buffer): parameter i's gradient is buffer[offsets[i], offsets[i] + numel), and backward
// writes the rows where written_by_backward[i] itself, reporting them to rows_written(); autograd
// hands the others' gradients to hooks, which copy them into their rows.
struct GradientBufferLayout {
  at::Tensor buffer;  // contiguous, 1-D; zero where no parameter lives (padding stays zero)
  std::vector<int64_t> offsets;
  std::vector<bool> written_by_backward;
};

struct GradientSyncOptions {
  DdpVariant variant = DdpVariant::naive;
  int64_t bucket_bytes = int64_t{25} << 20;  // bucketed only; PyTorch DDP's default
  GradientReduction reduction = GradientReduction::all_reduce;
  // The type gradients travel and are summed in; empty: their own. Another (bf16 for fp32
  // gradients, as PyTorch's bf16_compress_hook) has every variant cast and divide each gradient
  // in one pass into a buffer of that type, reduce it there and cast the mean back into the
  // parameter's gradient (zero1: into this rank's shards), so SyncTimings::bytes shrink with it.
  std::optional<at::ScalarType> reduce_dtype;
  // With another reduce type: leave each parameter's mean gradient in that type (a view of the
  // buffer it was reduced in), not cast back, for an optimizer that reads it so (FusedAdamW):
  // the same values, without the pass over the gradients. Not for reduce_scatter's shards.
  bool keep_reduce_dtype = false;
  // bucketed with all_reduce only: the buckets are consecutive slices of this buffer, reduced
  // in place (no copy for rows backward writes itself), and the gradients end as views of it.
  std::optional<GradientBufferLayout> gradient_buffer;
  // Called at the end of finish(), before its clock stops: on GPUs a device synchronisation,
  // so that exposed time includes collectives the device has not finished. Empty on the CPU.
  std::function<void()> synchronize;
};

class GradientSync {
 public:
  virtual ~GradientSync() = default;
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  virtual DdpVariant variant() const = 0;

  // Rank 0's parameter values to every rank (once, before training). Collective: every rank
  // calls it.
  void broadcast_parameters();
  // Before each step's backward: drops the gradients (each step averages one backward's
  // gradients) and forgets a step that failed part-way.
  void begin_step();
  // Right after backward: completes the communication, leaves every parameter's gradient the
  // mean over ranks and returns the step's record. Throws std::runtime_error naming the
  // parameter that received no gradient (every rank must use every parameter, as in DDP
  // without find_unused_parameters) or what the communicator threw.
  SyncTimings finish();

  const std::vector<at::Tensor>& parameters() const { return parameters_; }

  // Over a GradientBufferLayout: backward has queued the writes of the buffer's elements
  // [first, first + numel) (whole parameters' rows). Throws std::logic_error on other syncs.
  virtual void rows_written(int64_t first, int64_t numel);

  GradientReduction reduction() const { return reduction_; }
  // The units this sync reduces, in its order, each laid out as its buffer is (a unit's id,
  // GradientShard::unit, is its first piece's parameter). Every parameter is in one unit. By
  // default one unit per parameter; flat and bucketed override it.
  virtual std::vector<GradientUnit> units() const;
  // The buffers the variant keeps gradients in (flat buffer, buckets, copies in flight), for
  // the memory profiler's labels.
  virtual std::vector<at::Tensor> buffers() const { return {}; }
  // With reduce_scatter, after finish(): this rank's shard of every unit, by unit; the
  // parameters' own gradients are dropped (their memory is what ZeRO-1 saves).
  const std::vector<GradientShard>& shards() const { return shards_; }

  // From the next begin_step() on, records every collective's span (off by default: the
  // completion callbacks are not free). finish() keeps the step's; take them after it.
  void record_collectives(bool on) { recording_ = on; }
  std::vector<CollectiveSpan> take_collective_spans();

 protected:
  GradientSync(std::vector<at::Tensor> parameters, Communicator& comm, const GradientSyncOptions& options);

  // The variant's part of finish(): after it, every parameter's grad is the mean.
  virtual void complete() = 0;
  // The variant's part of begin_step(): per-step state back to empty.
  virtual void reset() {}
  // Times `call` (a communicator call or wait) into the step's comm_ms.
  void timed(const std::function<void()>& call);
  // Starts an all-reduce (sum) of `tensor`: counted, its start timed into comm_ms and, when
  // recording, its span recorded. Time its wait with timed().
  std::unique_ptr<PendingCollective> start_all_reduce(at::Tensor& tensor);
  // Where a reduce-scattered shard lives: in its own tensor, or in place as this rank's slice
  // of the unit's buffer (for buffers kept across steps: a per-step copy would then stay alive
  // whole until the next step, not just its shard).
  enum class ShardStorage { own, in_buffer };
  // Starts a unit's reduction: all_reduce: start_all_reduce(buffer); reduce_scatter: `buffer`
  // (padded_numel elements, already divided by the ranks) into this rank's shard, kept for
  // shards(). Counted, timed and recorded like start_all_reduce.
  std::unique_ptr<PendingCollective> start_reduction(at::Tensor& buffer, std::vector<UnitPiece> pieces,
                                                     ShardStorage storage = ShardStorage::own);
  bool scatters() const { return reduction_ == GradientReduction::reduce_scatter; }
  // What each rank's gradient is multiplied by on its way into a collective so that the
  // collective leaves the mean: 1 where the all-reduce averages itself (NCCL's ncclAvg, one
  // pass over the gradients fewer), else 1 / ranks.
  at::Scalar mean_factor() const;
  bool averages_in_collective() const { return !scatters() && comm_.averages(); }
  // The gradient backward left on parameter i; throws when there is none.
  const at::Tensor& gradient(size_t i) const;
  // The type a gradient like `like` is reduced in, and whether that is another than its own
  // (then the mean is cast back after the collective).
  at::ScalarType reduce_type(const at::Tensor& like) const { return reduce_dtype_.value_or(like.scalar_type()); }
  bool compresses(const at::Tensor& like) const { return reduce_type(like) != like.scalar_type(); }
  // After the reduction, parameter i's mean gradient from `mean` (the parameter's shape, in the
  // reduce type): the gradient itself where that is the parameter's type (or keep_reduce_dtype),
  // else cast back into the gradient backward left.
  void install_mean(size_t i, const at::Tensor& mean);
  // slot = grad * factor, into the slot's type (the reduce type): one pass where the types
  // agree or the factor is 1; else (bf16 reduction) a cast then an in-place scale, as CUDA's
  // mul_out refuses an output of another type than its inputs'.
  static void scaled_into(at::Tensor& slot, const at::Tensor& grad, const at::Scalar& factor);

  std::vector<at::Tensor> parameters_;
  Communicator& comm_;

 private:
  std::unique_ptr<PendingCollective> start_collective(int64_t bytes,
                                                      const std::function<std::unique_ptr<PendingCollective>()>& start);

  std::function<void()> synchronize_;
  GradientReduction reduction_;
  std::optional<at::ScalarType> reduce_dtype_;
  bool keep_reduce_dtype_;
  std::vector<GradientShard> shards_;
  struct SpanSlot;
  class RecordedWork;

  std::mutex step_mutex_;  // hooks may run on autograd's device thread
  SyncTimings step_;
  bool recording_ = false;
  std::vector<std::shared_ptr<SpanSlot>> spans_;
};

// Throws std::invalid_argument naming the parameter that is undefined, not a leaf requiring a
// gradient, or (flat, bucketed) of another type or device than parameter 0, or for a reduce type
// that is not floating, or a gradient buffer with another variant, reduction, type than the
// reduce type, or parameters outside it; ConfigError for a bucket size below 1 byte.
std::unique_ptr<GradientSync> make_gradient_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                                 const GradientSyncOptions& options);

}  // namespace stepscope::distributed
