#include "distributed/ddp/gradient_sync.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>

#include "distributed/ddp/sync_variants.h"

namespace stepscope::distributed {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void check_parameters(const std::vector<at::Tensor>& parameters, bool one_type) {
  for (size_t i = 0; i < parameters.size(); ++i) {
    const at::Tensor& p = parameters[i];
    const std::string name = "parameter " + std::to_string(i);
    if (!p.defined()) throw std::invalid_argument(name + " is undefined");
    // Hooks and gradients live on leaves that require them.
    if (!p.requires_grad() || !p.is_leaf()) throw std::invalid_argument(name + " is not a leaf requiring a gradient");
    if (one_type && (p.scalar_type() != parameters[0].scalar_type() || p.device() != parameters[0].device())) {
      throw std::invalid_argument(name + " is " + std::string(c10::toString(p.scalar_type())) + " on " +
                                  p.device().str() + ", parameter 0 " +
                                  std::string(c10::toString(parameters[0].scalar_type())) + " on " +
                                  parameters[0].device().str() + ": flattened gradients need one type and device");
    }
  }
}

}  // namespace

GradientSync::GradientSync(std::vector<at::Tensor> parameters, Communicator& comm, const GradientSyncOptions& options)
    : parameters_(std::move(parameters)),
      comm_(comm),
      synchronize_(options.synchronize),
      reduction_(options.reduction),
      reduce_dtype_(options.reduce_dtype),
      keep_reduce_dtype_(options.keep_reduce_dtype) {}

void GradientSync::broadcast_parameters() {
  at::NoGradGuard no_grad;
  // All started before any wait: one round of latency rather than one per parameter.
  std::vector<std::unique_ptr<PendingCollective>> pending;
  for (auto& p : parameters_) {
    at::Tensor data = p.detach();  // shares p's storage; c10d writes it in place
    pending.push_back(comm_.broadcast(data, 0));
  }
  for (auto& work : pending) work->wait();
}

void GradientSync::begin_step() {
  for (auto& p : parameters_) {
    if (p.grad().defined()) p.mutable_grad() = at::Tensor();
  }
  reset();
  std::lock_guard<std::mutex> lock(step_mutex_);
  step_ = SyncTimings();
  spans_.clear();
  shards_.clear();
}

SyncTimings GradientSync::finish() {
  const auto start = Clock::now();
  complete();
  if (scatters()) {
    for (auto& p : parameters_) p.mutable_grad() = at::Tensor();
  }
  {
    // Shards reduced in another type are cast back to their parameters' (the optimizer's).
    std::lock_guard<std::mutex> lock(step_mutex_);
    for (auto& shard : shards_) {
      const at::ScalarType own = parameters_.at(shard.unit).scalar_type();
      if (shard.gradient.scalar_type() != own) shard.gradient = shard.gradient.to(own);
    }
  }
  if (synchronize_) synchronize_();
  std::lock_guard<std::mutex> lock(step_mutex_);
  // Hooks start units in the order backward reaches them; the optimizer's state follows units.
  std::sort(shards_.begin(), shards_.end(), [](const GradientShard& a, const GradientShard& b) { return a.unit < b.unit; });
  step_.exposed_ms = ms_since(start);
  const SyncTimings done = step_;
  step_ = SyncTimings();
  return done;
}

void GradientSync::rows_written(int64_t, int64_t) {
  throw std::logic_error("rows_written: this gradient sync keeps no gradient buffer");
}

void GradientSync::timed(const std::function<void()>& call) {
  const auto start = Clock::now();
  call();
  const double ms = ms_since(start);
  std::lock_guard<std::mutex> lock(step_mutex_);
  step_.comm_ms += ms;
}

// The done time is written by whichever comes first: the backend's completion callback (a
// backend thread) or the return of wait().
struct GradientSync::SpanSlot {
  CollectiveSpan span;
  std::atomic<int64_t> done_ns{0};  // steady clock, 0 until known
  void mark_done() {
    int64_t none = 0;
    done_ns.compare_exchange_strong(none, Clock::now().time_since_epoch().count());
  }
};

class GradientSync::RecordedWork final : public PendingCollective {
 public:
  RecordedWork(std::unique_ptr<PendingCollective> work, std::shared_ptr<SpanSlot> slot)
      : work_(std::move(work)), slot_(std::move(slot)) {
    work_->call_when_done([slot = slot_] { slot->mark_done(); });
  }
  void wait() override {
    work_->wait();
    slot_->mark_done();
  }
  bool call_when_done(std::function<void()> done) override { return work_->call_when_done(std::move(done)); }

 private:
  std::unique_ptr<PendingCollective> work_;
  std::shared_ptr<SpanSlot> slot_;
};

std::vector<GradientUnit> GradientSync::units() const {
  std::vector<GradientUnit> out;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const int64_t numel = parameters_[i].numel();
    out.push_back({{{i, 0, numel}}, scatters() ? padded_numel(numel, comm_.size()) : numel});
  }
  return out;
}

std::unique_ptr<PendingCollective> GradientSync::start_all_reduce(at::Tensor& tensor) {
  const ReduceOp op = averages_in_collective() ? ReduceOp::average : ReduceOp::sum;
  return start_collective(tensor.numel() * static_cast<int64_t>(tensor.element_size()),
                          [&] { return comm_.all_reduce(tensor, op); });
}

at::Scalar GradientSync::mean_factor() const {
  return averages_in_collective() ? at::Scalar(1.0) : at::Scalar(1.0 / comm_.size());
}

std::unique_ptr<PendingCollective> GradientSync::start_reduction(at::Tensor& buffer, std::vector<UnitPiece> pieces,
                                                                 ShardStorage storage) {
  if (!scatters()) return start_all_reduce(buffer);
  const int ranks = comm_.size();
  if (buffer.numel() % ranks != 0) throw std::logic_error("a reduce-scatter unit must be padded to the ranks");
  GradientShard shard;
  shard.unit = pieces.empty() ? 0 : pieces.front().parameter;
  shard.pieces = std::move(pieces);
  shard.unit_numel = buffer.numel();
  shard.shard_numel = buffer.numel() / ranks;
  shard.shard_offset = comm_.rank() * shard.shard_numel;
  // In the buffer, the shard costs no memory beside it: what ZeRO-1 keeps over plain DDP is
  // then only its optimizer state's 1/N.
  if (storage == ShardStorage::in_buffer) {
    shard.gradient = buffer.view({-1}).narrow(0, shard.shard_offset, shard.shard_numel);
  } else {
    shard.gradient = at::empty({shard.shard_numel}, buffer.options());
  }
  at::Tensor output = shard.gradient;
  {
    std::lock_guard<std::mutex> lock(step_mutex_);
    shards_.push_back(std::move(shard));
  }
  return start_collective(buffer.numel() * static_cast<int64_t>(buffer.element_size()),
                          [&] { return comm_.reduce_scatter(output, buffer); });
}

std::unique_ptr<PendingCollective> GradientSync::start_collective(
    int64_t bytes, const std::function<std::unique_ptr<PendingCollective>()>& start) {
  std::shared_ptr<SpanSlot> slot;
  {
    std::lock_guard<std::mutex> lock(step_mutex_);
    step_.collectives += 1;
    step_.bytes += bytes;
    if (recording_) {
      slot = std::make_shared<SpanSlot>();
      slot->span.index = static_cast<int64_t>(spans_.size());
      slot->span.bytes = bytes;
      spans_.push_back(slot);
    }
  }
  if (slot) slot->span.start = Clock::now();
  std::unique_ptr<PendingCollective> work;
  timed([&] { work = start(); });
  if (!slot) return work;
  return std::make_unique<RecordedWork>(std::move(work), std::move(slot));
}

std::vector<CollectiveSpan> GradientSync::take_collective_spans() {
  std::lock_guard<std::mutex> lock(step_mutex_);
  std::vector<CollectiveSpan> out;
  for (const auto& slot : spans_) {
    CollectiveSpan span = slot->span;
    const int64_t done = slot->done_ns.load();
    span.done = done > 0 ? Clock::time_point(Clock::duration(done)) : span.start;
    out.push_back(span);
  }
  spans_.clear();
  return out;
}

void GradientSync::install_mean(size_t i, const at::Tensor& mean) {
  at::Tensor& grad = parameters_[i].mutable_grad();
  const at::ScalarType own = parameters_[i].scalar_type();
  if (mean.scalar_type() == own || keep_reduce_dtype_) {
    grad = mean;
  } else if (grad.defined()) {
    grad.copy_(mean);
  } else {
    grad = mean.to(own);
  }
}

const at::Tensor& GradientSync::gradient(size_t i) const {
  const at::Tensor& grad = parameters_[i].grad();
  if (!grad.defined()) {
    throw std::runtime_error("parameter " + std::to_string(i) + " received no gradient in this backward");
  }
  return grad;
}

std::unique_ptr<GradientSync> make_gradient_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                                 const GradientSyncOptions& options) {
  const bool flattened = options.variant == DdpVariant::flat || options.variant == DdpVariant::bucketed;
  check_parameters(parameters, flattened);
  if (options.reduce_dtype && !at::isFloatingType(*options.reduce_dtype)) {
    throw std::invalid_argument("gradients are reduced in a floating type, not " +
                                std::string(c10::toString(*options.reduce_dtype)));
  }
  if (options.gradient_buffer) return detail::make_buffer_bucketed_sync(std::move(parameters), comm, options);
  switch (options.variant) {
    case DdpVariant::naive: return detail::make_naive_sync(std::move(parameters), comm, options);
    case DdpVariant::flat: return detail::make_flat_sync(std::move(parameters), comm, options);
    case DdpVariant::overlap: return detail::make_overlap_sync(std::move(parameters), comm, options);
    case DdpVariant::bucketed: return detail::make_bucketed_sync(std::move(parameters), comm, options);
  }
  throw std::invalid_argument("unknown DDP variant");
}

void GradientSync::scaled_into(at::Tensor& slot, const at::Tensor& grad, const at::Scalar& factor) {
  if (factor.equal(1.0)) {  // the collective averages: a copy (a cast) is all
    slot.copy_(grad);
    return;
  }
  if (slot.scalar_type() == grad.scalar_type()) {
    at::mul_out(slot, grad, factor);
    return;
  }
  slot.copy_(grad);
  slot.mul_(factor);
}

}  // namespace stepscope::distributed
