#include "dist/ddp/gradient_sync.h"

#include <ATen/ATen.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "dist/ddp/sync_variants.h"

namespace stepscope::dist {

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

GradientSync::GradientSync(std::vector<at::Tensor> parameters, Communicator& comm, std::function<void()> synchronize)
    : parameters_(std::move(parameters)), comm_(comm), synchronize_(std::move(synchronize)) {}

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
}

SyncTimings GradientSync::finish() {
  const auto start = Clock::now();
  complete();
  if (synchronize_) synchronize_();
  std::lock_guard<std::mutex> lock(step_mutex_);
  step_.exposed_ms = ms_since(start);
  const SyncTimings done = step_;
  step_ = SyncTimings();
  return done;
}

void GradientSync::timed(const std::function<void()>& call) {
  const auto start = Clock::now();
  call();
  const double ms = ms_since(start);
  std::lock_guard<std::mutex> lock(step_mutex_);
  step_.comm_ms += ms;
}

void GradientSync::count_collective(const at::Tensor& tensor) {
  std::lock_guard<std::mutex> lock(step_mutex_);
  step_.collectives += 1;
  step_.bytes += tensor.numel() * static_cast<int64_t>(tensor.element_size());
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
  switch (options.variant) {
    case DdpVariant::naive: return detail::make_naive_sync(std::move(parameters), comm, options);
    case DdpVariant::flat: return detail::make_flat_sync(std::move(parameters), comm, options);
    case DdpVariant::overlap: return detail::make_overlap_sync(std::move(parameters), comm, options);
    case DdpVariant::bucketed: return detail::make_bucketed_sync(std::move(parameters), comm, options);
  }
  throw std::invalid_argument("unknown DDP variant");
}

}  // namespace stepscope::dist
