#include "experiments/ddp/ddp_case.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <chrono>

#include "compat/c10d_compat.h"
#include "dist/ddp/gradient_sync.h"
#include "model/adamw.h"
#include "model/loss.h"
#include "model/transformer_lm.h"
#include "runners/device_backend.h"

namespace stepscope {

struct DdpCase::Model {
  TransformerLM module{nullptr};
};

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point& mark) {
  const auto now = Clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - mark).count();
  mark = now;
  return ms;
}

struct Batch {
  at::Tensor inputs, targets;
};

// Step `step`'s global batch (batch x ranks sequences), the same on every rank and for the
// one-process reference; rank r trains rows [r*batch, (r+1)*batch).
Batch global_batch(const DdpConfig& c, int step) {
  auto generator = at::detail::createCPUGenerator(c.seed * 1000003 + 17 + static_cast<uint64_t>(step));
  const auto ids = torch::TensorOptions().dtype(torch::kInt64);
  const int64_t rows = c.batch * c.ranks, vocab = c.model.vocab_size;
  Batch b{at::randint(vocab, {rows, c.context}, generator, ids), at::randint(vocab, {rows, c.context}, generator, ids)};
  return b;
}

Batch shard(const Batch& whole, int64_t first, int64_t rows, const c10::Device& device) {
  return {whole.inputs.narrow(0, first, rows).to(device), whole.targets.narrow(0, first, rows).to(device)};
}

TransformerLM build_model(const DdpConfig& c, const c10::Device& device) {
  torch::manual_seed(c.seed);
  return TransformerLM(with_context(c.model, c.context), torch::TensorOptions().dtype(torch::kFloat32).device(device));
}

}  // namespace

DdpCase::DdpCase(DdpConfig config, dist::Communicator& comm) : comm_(comm) { result_.config = std::move(config); }

DdpCase::~DdpCase() = default;

void DdpCase::check(DeviceBackend& /*backend*/) {
  validate(result_.config);
  if (result_.config.ranks != comm_.size()) {
    throw ConfigError("the configuration is for " + std::to_string(result_.config.ranks) + " ranks, the group has " +
                          std::to_string(comm_.size()),
                      "nproc");
  }
}

void DdpCase::prepare(DeviceBackend& backend, profiling::AllocationRecorder* /*memory*/) {
  backend_ = &backend;
  result_.device_name = backend.name();
  model_ = std::make_unique<Model>();
  model_->module = build_model(result_.config, backend.device());
  dist::GradientSyncOptions options;
  options.variant = result_.config.variant;
  options.bucket_bytes = bucket_bytes(result_.config);
  options.synchronize = [&backend] { backend.synchronize(); };
  sync_ = dist::make_gradient_sync(model_->module->parameters(), comm_, options);
  sync_->broadcast_parameters();
  if (result_.config.check) {
    torch::NoGradGuard no_grad;
    for (const auto& p : model_->module->parameters()) initial_.push_back(p.detach().clone());
  }
  optimizer_ = std::make_unique<AdamW>(model_->module->parameters());
}

void DdpCase::run_step(const StepContext& step) {
  const DdpConfig& c = result_.config;
  const Batch mine = shard(global_batch(c, steps_run_++), comm_.rank() * c.batch, c.batch, backend_->device());
  StepTimes t;
  backend_->synchronize();
  const auto start = Clock::now();
  auto mark = start;
  sync_->begin_step();
  const at::Tensor loss = mean_cross_entropy(model_->module(mine.inputs), mine.targets);
  backend_->synchronize();
  t.forward = ms_since(mark);
  loss.backward();
  backend_->synchronize();
  t.backward = ms_since(mark);
  const dist::SyncTimings sync = sync_->finish();
  ms_since(mark);
  t.comm = sync.comm_ms;
  t.exposed = sync.exposed_ms;
  optimizer_->step();
  backend_->synchronize();
  t.optimizer = ms_since(mark);
  t.step = std::chrono::duration<double, std::milli>(mark - start).count();
  if (!step.warmup) steps_.push_back(t);
}

double DdpCase::reference_difference() {
  const DdpConfig& c = result_.config;
  const c10::Device device = backend_->device();
  TransformerLM reference = build_model(c, device);
  const auto parameters = reference->parameters();
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < parameters.size(); ++i) parameters[i].copy_(initial_[i]);
  }
  AdamW optimizer(parameters);
  for (int s = 0; s < steps_run_; ++s) {
    const Batch whole = shard(global_batch(c, s), 0, c.batch * c.ranks, device);
    optimizer.zero_grad();
    mean_cross_entropy(reference(whole.inputs), whole.targets).backward();
    optimizer.step();
  }
  const auto trained = model_->module->parameters();
  double largest = 0;
  for (size_t i = 0; i < parameters.size(); ++i) {
    largest = std::max(largest, (trained[i].detach() - parameters[i].detach()).abs().max().item<double>());
  }
  return largest;
}

void DdpCase::after_measuring(DeviceBackend& /*backend*/) {
  if (!result_.config.check) return;
  at::Tensor largest = at::full({1}, reference_difference(), at::TensorOptions().dtype(at::kDouble));
  comm_.all_reduce(largest, dist::ReduceOp::max)->wait();
  result_.max_param_diff = largest.item<double>();
}

void DdpCase::release() {
  optimizer_.reset();
  sync_.reset();
  model_.reset();
  initial_.clear();
}

void DdpCase::finish(CaseEnd end) {
  result_.status = end.status;
  result_.message = end.message;
  if (steps_.empty() || end.status != RunStatus::ok) return;
  StepTimes sum;
  for (const auto& t : steps_) {
    sum.step += t.step;
    sum.forward += t.forward;
    sum.backward += t.backward;
    sum.comm += t.comm;
    sum.exposed += t.exposed;
    sum.optimizer += t.optimizer;
  }
  const double n = static_cast<double>(steps_.size());
  result_.step_ms = sum.step / n;
  result_.forward_ms = sum.forward / n;
  result_.backward_ms = sum.backward / n;
  result_.comm_ms = sum.comm / n;
  result_.exposed_comm_ms = sum.exposed / n;
  result_.optimizer_ms = sum.optimizer / n;
}

DdpResult combine_ranks(const DdpResult& local, dist::Communicator& comm) {
  DdpResult row = local;
  // [failed?, step, forward, backward, comm, exposed, optimizer, diff], max over ranks.
  at::Tensor worst = at::tensor({local.status == RunStatus::ok ? 0.0 : 1.0, local.step_ms, local.forward_ms,
                                 local.backward_ms, local.comm_ms, local.exposed_comm_ms, local.optimizer_ms,
                                 local.max_param_diff},
                                at::TensorOptions().dtype(at::kDouble));
  comm.all_reduce(worst, dist::ReduceOp::max)->wait();
  const auto w = worst.accessor<double, 1>();
  if (w[0] > 0 && row.status == RunStatus::ok) {
    row.status = RunStatus::failed;
    row.message = "another rank failed this row";
  }
  row.step_ms = w[1];
  row.forward_ms = w[2];
  row.backward_ms = w[3];
  row.comm_ms = w[4];
  row.exposed_comm_ms = w[5];
  row.optimizer_ms = w[6];
  row.max_param_diff = w[7];
  return row;
}

}  // namespace stepscope
