#include "experiments/attention/attention_case.h"

#include <algorithm>
#include <cmath>

#include <torch/torch.h>

#include "attention/attend.h"
#include "experiments/attention/attention_sweep.h"
#include "attention/attention_memory.h"
#include "attention/naive_attention.h"
#include "experiments/memory_precheck.h"
#include "model/flops.h"
#include "runners/device_backend.h"
#include "core/phase_stats.h"
#include "runners/precision_dtype.h"

namespace stepscope {

namespace {

// Scores the check may hold at once: a GiB of fp32, a few seconds of naive attention on a CPU.
constexpr double kMaxCheckedScores = double(int64_t{1} << 28);

struct Passes {
  at::Tensor o, dq, dk, dv;
};

Passes forward_and_backward(AttentionImpl impl, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            const at::Tensor& d_o, bool causal) {
  const auto leaf = [](const at::Tensor& t) { return t.detach().requires_grad_(true); };
  auto ql = leaf(q), kl = leaf(k), vl = leaf(v);
  auto o = attend(impl, ql, kl, vl, causal);
  o.backward(d_o);
  return {o.detach(), ql.grad(), kl.grad(), vl.grad()};
}

double max_abs_difference(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(torch::kFloat32) - b.to(torch::kFloat32)).abs().max().item<double>();
}

}  // namespace

int64_t checkable_seq(const AttentionConfig& c, int64_t available_bytes) {
  const double bh = static_cast<double>(c.batch) * static_cast<double>(c.heads);
  double max_scores = kMaxCheckedScores;
  // Naive fp32 holds about three seq x seq fp32 matrices at once in its backward pass.
  if (available_bytes > 0) max_scores = std::min(max_scores, static_cast<double>(available_bytes) / 4.0 / (3.0 * 4.0));
  const auto fitting = static_cast<int64_t>(std::floor(std::sqrt(max_scores / bh)));
  return std::max<int64_t>(1, std::min(c.seq, fitting));
}

AttentionCase::AttentionCase(AttentionConfig config) {
  round_.warmup = config.warmup_steps;
  round_.measured = config.measured_steps;
  result_.config = std::move(config);
}

std::string AttentionCase::label() const {
  const std::string shape = describe(result_.config);
  if (rounds_ <= 1) return shape;
  return shape + " round " + std::to_string(round_.round + 1) + "/" + std::to_string(rounds_);
}

void AttentionCase::begin_round(const RoundSlot& slot, int rounds) {
  round_ = slot;
  rounds_ = rounds;
}

AttentionCase::~AttentionCase() = default;

void AttentionCase::check(DeviceBackend& /*backend*/) { check_runnable(result_.config); }

void AttentionCase::prepare(DeviceBackend& backend, profiling::AllocationRecorder* /*memory*/) {
  const AttentionConfig& c = result_.config;
  backend_ = &backend;
  result_.device_name = backend.name();
  result_.timer = backend.timer_name();
  refuse_if_clearly_too_large(attention_memory(c).peak_bytes(), backend.available_memory_bytes(), c.device,
                              "inputs, what the forward pass keeps, gradients and the backward's buffers");
  torch::manual_seed(c.seed);
  const auto options = torch::TensorOptions().dtype(scalar_type_of(c.precision)).device(backend.device());
  const std::vector<int64_t> shape{c.batch, c.heads, c.seq, c.head_dim};
  q_ = torch::randn(shape, options).requires_grad_(true);
  k_ = torch::randn(shape, options).requires_grad_(true);
  v_ = torch::randn(shape, options).requires_grad_(true);
  d_o_ = torch::randn(shape, options);
  if (!checked_) check_against_naive();
  checked_ = true;
  clock_ = backend.make_clock();
}

void AttentionCase::check_against_naive() {
  const AttentionConfig& c = result_.config;
  const int64_t seq = checkable_seq(c, backend_->available_memory_bytes());
  const auto first = [seq](const at::Tensor& t) { return t.detach().narrow(2, 0, seq); };
  const Passes tested = forward_and_backward(c.impl, first(q_), first(k_), first(v_), first(d_o_), c.causal);
  const auto fp32 = [&](const at::Tensor& t) { return first(t).to(torch::kFloat32); };
  const Passes reference =
      forward_and_backward(AttentionImpl::naive, fp32(q_), fp32(k_), fp32(v_), fp32(d_o_), c.causal);
  result_.max_abs_error = std::max({max_abs_difference(tested.o, reference.o), max_abs_difference(tested.dq, reference.dq),
                                    max_abs_difference(tested.dk, reference.dk), max_abs_difference(tested.dv, reference.dv)});
  result_.checked_seq = seq;
}

void AttentionCase::run_step(const StepContext& step) {
  const AttentionConfig& c = result_.config;
  clock_->start();
  auto o = attend(c.impl, q_, k_, v_, c.causal);
  clock_->end_forward();
  if (!step.warmup && result_.memory_before_backward_bytes < 0) {
    result_.memory_before_backward_bytes = backend_->allocated_memory_bytes();
  }
  o.backward(d_o_);
  clock_->end_backward();
  const StepTiming timing = clock_->finish(StepMode::forward_backward);
  // Each backward pass writes fresh gradients rather than adding to the last ones.
  for (auto* t : {&q_, &k_, &v_}) t->mutable_grad() = at::Tensor();
  if (!step.warmup) steps_.push_back(timing);
}

void AttentionCase::after_measuring(DeviceBackend& backend) {
  result_.peak_memory_bytes = std::max(result_.peak_memory_bytes, backend.peak_memory_bytes());
}

void AttentionCase::release() {
  q_ = k_ = v_ = d_o_ = at::Tensor();
  clock_.reset();
}

void AttentionCase::finish(CaseEnd end) {
  // A round that did not end well ends the case; the passes of earlier rounds stay.
  if (result_.status == RunStatus::ok) {
    result_.status = end.status;
    result_.message = end.message;
    if (end.status == RunStatus::cancelled) {
      result_.message = "cancelled after " + std::to_string(steps_.size()) + " of " +
                        std::to_string(result_.config.measured_steps) + " measured passes";
    }
  }
  std::vector<int64_t> forward, backward, both;
  for (const auto& s : steps_) {
    forward.push_back(s.forward_ns);
    backward.push_back(s.backward_ns);
    both.push_back(s.total_ns);
  }
  result_.forward = summarize_ns(forward);
  result_.backward = summarize_ns(backward);
  result_.forward_backward = summarize_ns(both);
  const AttentionConfig& c = result_.config;
  const double flops = attention_forward_flops(c.batch, c.heads, c.seq, c.seq, c.head_dim, c.causal);
  if (result_.forward.mean_ms > 0) result_.forward_tflops = flops / (result_.forward.mean_ms * 1e-3) / 1e12;
  if (result_.backward.mean_ms > 0) {
    result_.backward_tflops = attention_backward_flops(c.batch, c.heads, c.seq, c.seq, c.head_dim, c.causal) /
                              (result_.backward.mean_ms * 1e-3) / 1e12;
  }
}

}  // namespace stepscope
