#include "experiments/ddp/ddp_case.h"

#include "core/config_error.h"
#include "core/device.h"

#include <torch/torch.h>

#include <optional>

#include "compat/c10d_compat.h"
#include "compat/torch_compat.h"
#include "distributed/ddp/gradient_sync.h"
#include "distributed/rank_gather.h"
#include "distributed/sharding/distributed_optimizer.h"
#include "experiments/ddp/ddp_batches.h"
#include "experiments/memory_precheck.h"
#include "model/adamw.h"
#include "model/fused/fused_adamw.h"
#include "model/fused/fused_lm.h"
#include "model/loss.h"
#include "model/transformer_lm.h"
#include "profiling/allocation_recorder.h"
#include "profiling/memory_timeline.h"
#include "profiling/step_ranges.h"
#include "runners/device_backend.h"
#include "runners/engine_model.h"
#include "runners/training_step.h"

namespace stepscope {

namespace {

ConfigError no_bf16_sums() {
  return ConfigError("Gloo in LibTorch " + compat::libtorch_version() +
                         " sums no bf16: reduce gradients in fp32 here (or bf16 with nccl on GPUs)",
                     "reduce-dtype");
}

}  // namespace

void check_runnable(const DdpConfig& c) {
  validate(c);
  if (c.reduce_dtype == Precision::bf16 && c.backend == CommBackend::gloo && !compat::gloo_has_bfloat16()) {
    throw no_bf16_sums();
  }
}

bool reduces_in_gradient_buffer(const DdpConfig& c) {
  return c.engine == EngineKind::fused && c.variant == distributed::DdpVariant::bucketed &&
         c.optimizer == distributed::OptimizerSharding::none && c.reduce_dtype == c.precision;
}

DdpCase::DdpCase(DdpConfig config, distributed::Communicator& comm) : comm_(comm) { result_.config = std::move(config); }

DdpCase::~DdpCase() = default;

void DdpCase::check(DeviceBackend& backend) {
  validate(result_.config);
  TrainingStep::check_precision(result_.config.precision, backend.device(), result_.config.engine);
  if (result_.config.reduce_dtype == Precision::bf16 && !comm_.sums_bfloat16()) throw no_bf16_sums();
  if (result_.config.ranks != comm_.size()) {
    throw ConfigError("the configuration is for " + std::to_string(result_.config.ranks) + " ranks, the group has " +
                          std::to_string(comm_.size()),
                      "nproc");
  }
}

void DdpCase::build_or_refuse(DeviceBackend& backend) {
  const DdpConfig& c = result_.config;
  // Out of memory here is a result; every rank learns of any rank's before the first collective.
  std::string refused;
  try {
    const int64_t sharing = c.device.is_cpu() ? c.ranks_on_host : 1;
    refuse_if_clearly_too_large(bytes_for_ranks(ddp_memory_bytes(c), sharing), backend.available_memory_bytes(), c.device,
                                sharing > 1 ? std::to_string(sharing) + " ranks on this machine, each a training step of " +
                                                  std::to_string(c.batch) + " sequences"
                                            : "a training step of " + std::to_string(c.batch) + " sequences");
  } catch (const EstimatedOutOfMemory& e) {
    refused = e.what();
  }
  bool out_of_memory = !refused.empty();
  if (!out_of_memory) {
    try {
      model_ = std::make_unique<EngineModel>(c.engine, with_context(c.model, c.context), c.precision, c.seed,
                                               backend.device());
    } catch (const std::exception& e) {
      if (!compat::is_out_of_memory(e)) throw;
      model_.reset();
      out_of_memory = true;
    }
  }
  at::Tensor flag = at::full({1}, out_of_memory ? 1.0f : 0.0f, at::TensorOptions().device(backend.device()));
  comm_.all_reduce(flag, distributed::ReduceOp::max)->wait();
  if (flag.item<float>() == 0) return;
  model_.reset();
  if (!refused.empty()) throw EstimatedOutOfMemory(refused);
  if (out_of_memory) throw std::bad_alloc();
  throw EstimatedOutOfMemory("another rank ran out of memory building the model");
}

void DdpCase::prepare(DeviceBackend& backend, profiling::AllocationRecorder* memory) {
  backend_ = &backend;
  result_.device_name = backend.name();
  if (result_.config.sm_carveout > 0) {
    // For the whole case: the graphs captured in warm-up keep the GEMMs it plans.
    try {
      carveout_ = std::make_unique<compat::MatmulSmCarveout>(result_.config.sm_carveout);
    } catch (const std::exception& e) {
      throw ConfigError(e.what(), "sm-carveout");
    }
  }
  build_or_refuse(backend);
  const DdpConfig& c = result_.config;
  distributed::GradientSyncOptions options;
  options.variant = c.variant;
  options.bucket_bytes = bucket_bytes(c);
  // Not while capturing: the graph's own join waits for the collectives on every replay.
  options.synchronize = [this] {
    if (!capturing_) backend_->synchronize();
  };
  options.reduction = c.optimizer == distributed::OptimizerSharding::zero1 ? distributed::GradientReduction::reduce_scatter
                                                                           : distributed::GradientReduction::all_reduce;
  if (c.reduce_dtype == Precision::bf16) options.reduce_dtype = at::kBFloat16;
  // FusedAdamW reads bf16 gradients as they are: no pass casting them back.
  options.keep_reduce_dtype = model_->fused() && c.optimizer == distributed::OptimizerSharding::none;
  // The fused engine's parameters are views of one flat buffer and their gradients row blocks
  // of one product (q | k | v, w1 | w3). Bucketed, with the optimizer on every rank and the
  // gradients reduced in the type the model computes in: the buckets are slices of the model's
  // gradient buffer, which the projections' backward writes directly (no bucket copies).
  // Otherwise hooks and buckets take the gradients one by one, in the reference model's order.
  FusedTransformerLM* fused = model_->fused();
  if (fused && reduces_in_gradient_buffer(c)) {
    fused->set_gradient_buffer(at::zeros_like(fused->compute_copy()));  // zero: padding travels as zero
    distributed::GradientBufferLayout layout;
    layout.buffer = fused->gradient_buffer();
    for (const auto& rows : fused->gradient_rows()) {
      layout.offsets.push_back(rows.first);
      layout.written_by_backward.push_back(rows.written_by_backward);
    }
    options.gradient_buffer = std::move(layout);
  }
  sync_ = distributed::make_gradient_sync(model_->parameters(), comm_, options);
  if (options.gradient_buffer) {
    fused->set_gradient_rows_listener([sync = sync_.get()](int64_t first, int64_t numel) {
      sync->rows_written(first, numel);
    });
  }
  sync_->broadcast_parameters();
  if (model_->fused()) model_->fused()->refresh_compute_copy();  // rank 0's weights, also to compute with
  if (c.check) {
    torch::NoGradGuard no_grad;
    for (const auto& p : model_->parameters()) initial_.push_back(p.detach().clone());
  }
  if (model_->fused() && c.optimizer == distributed::OptimizerSharding::none) {
    // One pass over the flat buffer, refreshing the compute copy on the way.
    optimizer_ = distributed::make_fused_distributed_optimizer(model_->fused()->flat_parameters(), model_->parameters(),
                                                               model_->copy_to_refresh());
  } else {
    // The sharded optimizers step the fused engine's parameters as any (zero1 moves them into
    // buffers of its own); train_step then refreshes its compute copy from them.
    optimizer_ = distributed::make_distributed_optimizer(c.optimizer, *sync_, {{model_->parameters(), AdamWOptions()}},
                                                         comm_);
  }
  const bool deferred = c.optimizer == distributed::OptimizerSharding::zero1 &&
                        c.zero1_gathers == distributed::Zero1Gathers::next_forward;
  refresh_after_step_ = model_->fused() && c.optimizer != distributed::OptimizerSharding::none && !deferred;
  if (deferred) {
    // ZeRO-1's all-gathers run under the next forward pass, each waited for before the first
    // stage that uses its parameters; the fused engine then copies that stage's parameters into
    // its compute copy.
    optimizer_->defer_gathers_to_forward(model_->parameter_stages());
    model_->set_before_stage([optimizer = optimizer_.get(), fused](int stage) {
      optimizer->before_stage(stage);
      if (fused) fused->refresh_compute_copy_from_parameters(stage);
    });
  }
  choose_graphs(backend);
  if (memory) {
    label_memory(*memory);
    memory->mark_phase(profiling::step_ranges::kModelReady);
  }
}

void DdpCase::label_memory(profiling::AllocationRecorder& memory) const {
  // Storage bases: flat and bucketed gradients are views into one buffer.
  const auto label = [&](const at::Tensor& t, profiling::MemoryCategory category) {
    if (t.defined() && t.has_storage()) {
      memory.label(t.storage().data(), category, static_cast<int64_t>(t.storage().nbytes()));
    }
  };
  for (const auto& p : model_->parameters()) {
    label(p, profiling::MemoryCategory::parameter);
    label(p.grad(), profiling::MemoryCategory::gradient);
  }
  if (model_->fused()) {
    label(model_->fused()->flat_parameters(), profiling::MemoryCategory::parameter);  // zero1 may have left it
    label(model_->fused()->compute_copy(), profiling::MemoryCategory::parameter);
  }
  for (const auto& shard : sync_->shards()) label(shard.gradient, profiling::MemoryCategory::gradient);
  for (const auto& buffer : sync_->buffers()) label(buffer, profiling::MemoryCategory::gradient);
  for (const auto& m : optimizer_->state_tensors()) label(m, profiling::MemoryCategory::optimizer_state);
}

double DdpCase::reference_difference() {
  const DdpConfig& c = result_.config;
  const c10::Device device = backend_->device();
  // The same engine, in one process.
  EngineModel reference(c.engine, with_context(c.model, c.context), c.precision, c.seed, device);
  const auto parameters = reference.parameters();
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < parameters.size(); ++i) parameters[i].copy_(initial_[i]);
  }
  std::unique_ptr<AdamW> adamw;
  std::unique_ptr<fused::FusedAdamW> fused_adamw;
  if (reference.fused()) {
    reference.fused()->refresh_compute_copy();
    fused_adamw = std::make_unique<fused::FusedAdamW>(reference.fused()->flat_parameters(), parameters,
                                                      reference.copy_to_refresh());
  } else {
    adamw = std::make_unique<AdamW>(parameters);
  }
  for (int s = 0; s < steps_run_; ++s) {
    const DdpBatch whole = rank_rows(global_batch(c, s), 0, c.batch * c.ranks, device);
    for (const auto& p : parameters) p.mutable_grad() = at::Tensor();
    reference.loss(whole.inputs, whole.targets).backward();
    if (fused_adamw) {
      fused_adamw->step();
    } else {
      adamw->step();
    }
  }
  const auto trained = model_->parameters();
  double largest = 0;
  for (size_t i = 0; i < parameters.size(); ++i) {
    largest = std::max(largest, (trained[i].detach() - parameters[i].detach()).abs().max().item<double>());
  }
  return largest;
}

void DdpCase::after_measuring(DeviceBackend& backend) {
  picture_step();
  optimizer_->finish_pending();  // the last step's parameters, for the check
  if (!result_.config.check) return;
  // Every rank's difference, through the rank's device (NCCL reduces GPU memory only).
  double largest = 0;
  for (const auto& rank : distributed::gather_numbers(comm_, {reference_difference()}, backend.device())) {
    largest = std::max(largest, rank[0]);
  }
  result_.max_param_diff = largest;
}

void DdpCase::release() {
  graphs_.reset();  // first: its pool holds the step's tensors
  graph_loss_ = at::Tensor();
  inputs_ = targets_ = at::Tensor();
  if (model_) model_->set_before_stage({});
  if (model_ && model_->fused()) model_->fused()->set_gradient_rows_listener({});  // before the sync goes
  if (optimizer_) result_.optimizer_state_bytes = optimizer_->state_bytes();
  optimizer_.reset();
  sync_.reset();
  model_.reset();
  initial_.clear();
  carveout_.reset();
}

namespace {

// Live bytes per category where the band of `phase` in `step` begins (the last point before its
// first event); nothing when the record has no such band.
std::optional<profiling::CategoryBytes> bytes_at(const profiling::MemoryTimeline& t, const char* phase, int step) {
  int32_t band = -1;
  for (size_t b = 0; b < t.bands.size(); ++b) {
    if (t.bands[b].phase == phase && t.bands[b].step == step) band = static_cast<int32_t>(b);
  }
  if (band < 0) return std::nullopt;
  profiling::CategoryBytes bytes{};
  for (const auto& point : t.points) {
    if (point.band >= band) break;
    bytes = point.bytes_by_category;
  }
  return bytes;
}

}  // namespace

void DdpCase::read_memory(const profiling::AllocationLog& log) {
  profiling::TimelineOptions options;
  options.device = result_.config.device.ordinal();
  const auto timeline = profiling::build_memory_timeline(log, options);
  const int last = result_.config.warmup_steps + result_.config.measured_steps - 1;
  const std::pair<const char*, int> where[] = {{profiling::step_ranges::kModelReady, -1},
                                               {profiling::step_ranges::kOptimizerStep, last},
                                               {profiling::step_ranges::kStepEnd, last}};
  result_.memory.clear();
  for (const auto& [phase, step] : where) {
    const auto bytes = bytes_at(timeline, phase, step);
    if (!bytes) {
      result_.memory.clear();
      return;
    }
    result_.memory.push_back(*bytes);
  }
}

void DdpCase::finish(CaseEnd end) {
  result_.status = end.status;
  result_.message = end.message;
  if (end.status == RunStatus::ok && !graphs_note_.empty()) {
    result_.message = result_.message.empty() ? graphs_note_ : result_.message + "; " + graphs_note_;
  }
  if (end.observation.allocation_log && end.status == RunStatus::ok) read_memory(*end.observation.allocation_log);
  if (steps_.empty() || end.status != RunStatus::ok) return;
  StepTimes sum;
  for (const auto& t : steps_) {
    sum.step += t.step;
    sum.forward += t.forward;
    sum.backward += t.backward;
    sum.optimizer += t.optimizer;
    sum.bytes += t.bytes;
  }
  const double n = static_cast<double>(steps_.size());
  result_.step_ms = sum.step / n;
  result_.forward_ms = sum.forward / n;
  result_.backward_ms = sum.backward / n;
  // < 0: not measured in some step (the collectives' host time under CUDA graphs).
  const auto mean = [&](double StepTimes::*time) {
    double total = 0;
    for (const auto& t : steps_) {
      if (t.*time < 0) return -1.0;
      total += t.*time;
    }
    return total / n;
  };
  result_.comm_ms = mean(&StepTimes::comm);
  result_.exposed_comm_ms = mean(&StepTimes::exposed);
  result_.optimizer_ms = sum.optimizer / n;
  result_.comm_bytes = sum.bytes / static_cast<int64_t>(steps_.size());
}

}  // namespace stepscope
