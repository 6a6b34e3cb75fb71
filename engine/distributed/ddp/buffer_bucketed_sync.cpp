// bucketed over a model's own gradient buffer (GradientBufferLayout): the buckets are consecutive
// slices of that buffer, from its end (backward's first gradients) to its start, so a bucket is
// all-reduced where its gradients already are. Rows backward writes itself (the fused engine's
// projections) cost no copy at all; the other gradients are cast into their rows by hooks. The
// gradients end as views of the buffer, as PyTorch's gradient_as_bucket_view.
#include <ATen/ATen.h>

#include <algorithm>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>

#include "core/config_error.h"
#include "distributed/ddp/bucket_arrivals.h"
#include "distributed/ddp/gradient_hooks.h"
#include "distributed/ddp/sync_variants.h"

namespace stepscope::distributed::detail {

namespace {

std::string parameter_name(size_t i) { return "parameter " + std::to_string(i); }

// Throws std::invalid_argument for a layout this sync cannot reduce.
void check_layout(const std::vector<at::Tensor>& parameters, const GradientSyncOptions& options) {
  const GradientBufferLayout& layout = *options.gradient_buffer;
  const auto refuse = [](const std::string& why) { throw std::invalid_argument("gradient buffer: " + why); };
  if (options.variant != DdpVariant::bucketed || options.reduction != GradientReduction::all_reduce) {
    refuse("only the bucketed variant with all-reduce reduces in a model's gradient buffer");
  }
  const at::Tensor& buffer = layout.buffer;
  if (!buffer.defined() || buffer.dim() != 1 || !buffer.is_contiguous()) refuse("must be a contiguous 1-D tensor");
  if (parameters.empty()) refuse("there are no parameters");
  const at::ScalarType type = options.reduce_dtype.value_or(parameters[0].scalar_type());
  if (buffer.scalar_type() != type || buffer.device() != parameters[0].device()) {
    refuse("is " + std::string(c10::toString(buffer.scalar_type())) + " on " + buffer.device().str() +
           ", gradients are reduced in " + c10::toString(type) + " on " + parameters[0].device().str());
  }
  if (layout.offsets.size() != parameters.size() || layout.written_by_backward.size() != parameters.size()) {
    refuse("the layout names " + std::to_string(layout.offsets.size()) + " offsets and " +
           std::to_string(layout.written_by_backward.size()) + " flags for " + std::to_string(parameters.size()) +
           " parameters");
  }
  std::vector<size_t> order(parameters.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return layout.offsets[a] < layout.offsets[b]; });
  int64_t end = 0;  // of the previous parameter's rows, in offset order
  for (size_t i : order) {
    const int64_t first = layout.offsets[i];
    if (first < end || first + parameters[i].numel() > buffer.numel()) {
      refuse(parameter_name(i) + "'s rows [" + std::to_string(first) + ", " +
             std::to_string(first + parameters[i].numel()) + ") overlap another's or leave the buffer of " +
             std::to_string(buffer.numel()) + " elements");
    }
    end = first + parameters[i].numel();
  }
}

class BufferBucketedSync final : public GradientSync {
 public:
  BufferBucketedSync(std::vector<at::Tensor> parameters, Communicator& comm, const GradientSyncOptions& options)
      : GradientSync(std::move(parameters), comm, options),
        buffer_(options.gradient_buffer->buffer),
        offsets_(options.gradient_buffer->offsets),
        written_by_backward_(options.gradient_buffer->written_by_backward),
        arrivals_(plan(options.bucket_bytes)),
        hooks_(parameters_, [this](size_t i, const at::Tensor& grad) { hook(i, grad); }) {
    by_offset_.resize(parameters_.size());
    std::iota(by_offset_.begin(), by_offset_.end(), size_t{0});
    std::sort(by_offset_.begin(), by_offset_.end(), [&](size_t a, size_t b) { return offsets_[a] < offsets_[b]; });
  }
  DdpVariant variant() const override { return DdpVariant::bucketed; }
  std::vector<at::Tensor> buffers() const override { return {buffer_}; }
  std::vector<GradientUnit> units() const override {
    std::vector<GradientUnit> out;
    for (const auto& b : buckets_) {
      GradientUnit unit{{}, b.slice.numel()};
      for (size_t i : b.parameters) unit.pieces.push_back({i, offsets_[i] - b.first, parameters_[i].numel()});
      out.push_back(std::move(unit));
    }
    return out;
  }

  void rows_written(int64_t first, int64_t numel) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = std::lower_bound(by_offset_.begin(), by_offset_.end(), first,
                               [&](size_t i, int64_t at) { return offsets_[i] < at; });
    int64_t covered = 0;
    for (; it != by_offset_.end() && offsets_[*it] < first + numel; ++it) {
      const size_t i = *it;
      if (!written_by_backward_[i] || offsets_[i] + parameters_[i].numel() > first + numel) {
        throw std::logic_error("gradient buffer: rows [" + std::to_string(first) + ", " + std::to_string(first + numel) +
                               ") reported written, but " + parameter_name(i) + " is not written by backward there");
      }
      covered += parameters_[i].numel();
      arrive(i);
    }
    if (covered == 0) {
      throw std::logic_error("gradient buffer: rows [" + std::to_string(first) + ", " + std::to_string(first + numel) +
                             ") reported written hold no parameter");
    }
  }

 protected:
  void complete() override {
    for (auto& b : buckets_) {
      if (b.work) timed([&] { b.work->wait(); });
    }
    if (const size_t i = arrivals_.first_missing(); i < parameters_.size()) {
      reset();
      throw std::runtime_error("bucketed DDP: " + parameter_name(i) + " received no gradient in this backward");
    }
    for (size_t i = 0; i < parameters_.size(); ++i) {
      install_mean(i, buffer_.narrow(0, offsets_[i], parameters_[i].numel()).view(parameters_[i].sizes()));
    }
    reset();
  }

  void reset() override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& b : buckets_) b.work.reset();
    arrivals_.reset();
  }

 private:
  struct BucketState {
    int64_t first = 0;               // the slice's first element in the buffer
    at::Tensor slice;                // buffer[first, first + numel)
    std::vector<size_t> parameters;  // whose rows lie in it, backward's order
    std::unique_ptr<PendingCollective> work;
  };

  // Parameters from the buffer's end down, cut at bucket_bytes of their rows as PyTorch's
  // bucket_cap_mb (a larger parameter gets a bucket of its own); the slices tile the buffer, so
  // the padding between parameters' rows travels too (it stays zero). Returns each parameter's
  // bucket.
  std::vector<size_t> plan(int64_t bucket_bytes) {
    if (bucket_bytes < 1) {
      throw ConfigError("bucket size must be at least 1 byte (got " + std::to_string(bucket_bytes) + ")", "bucket_mb");
    }
    std::vector<size_t> order(parameters_.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return offsets_[a] > offsets_[b]; });
    const auto element_bytes = static_cast<int64_t>(buffer_.element_size());
    int64_t end = buffer_.numel();
    std::vector<size_t> members, bucket_of(parameters_.size());
    int64_t bytes = 0;
    const auto close = [&](int64_t first) {
      BucketState b;
      b.first = first;
      b.slice = buffer_.narrow(0, first, end - first);
      b.parameters = std::move(members);
      for (size_t i : b.parameters) bucket_of[i] = buckets_.size();
      buckets_.push_back(std::move(b));
      end = first;
      members.clear();
      bytes = 0;
    };
    for (size_t i : order) {
      const int64_t own = parameters_[i].numel() * element_bytes;
      if (!members.empty() && bytes + own > bucket_bytes) close(offsets_[members.back()]);
      members.push_back(i);
      bytes += own;
    }
    if (!members.empty()) close(0);
    return bucket_of;
  }

  // Autograd's gradient of a parameter whose rows backward does not write: cast into them.
  void hook(size_t i, const at::Tensor& grad) {
    if (!grad.defined()) return;  // no gradient: complete() names the parameter
    if (written_by_backward_[i]) {
      throw std::logic_error("gradient buffer: " + parameter_name(i) +
                             " is written by backward, yet autograd handed it a gradient");
    }
    std::lock_guard<std::mutex> lock(mutex_);
    buffer_.narrow(0, offsets_[i], grad.numel()).view(grad.sizes()).copy_(grad);
    arrive(i);
  }

  // Under mutex_.
  void arrive(size_t i) {
    for (size_t r : arrivals_.arrive(i)) {
      BucketState& ready = buckets_[r];
      if (!averages_in_collective()) ready.slice.mul_(mean_factor());  // Gloo sums: divide first
      ready.work = start_all_reduce(ready.slice);
    }
  }

  at::Tensor buffer_;
  std::vector<int64_t> offsets_;
  std::vector<bool> written_by_backward_;
  std::vector<size_t> by_offset_;  // parameters by their rows' first element
  std::vector<BucketState> buckets_;
  BucketArrivals arrivals_;  // after buckets_: plan() fills them
  std::mutex mutex_;
  GradientHooks hooks_;  // last: removed before the state its callback uses
};

}  // namespace

std::unique_ptr<GradientSync> make_buffer_bucketed_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                                        const GradientSyncOptions& options) {
  check_layout(parameters, options);
  return std::make_unique<BufferBucketedSync>(std::move(parameters), comm, options);
}

}  // namespace stepscope::distributed::detail
