// The DDP case's step: its batch, the choice and capture of CUDA graphs, and the timed phases
// (eager launches or graph replays), with the picture step recorded after the measured ones.
#include "experiments/ddp/ddp_case.h"

#include <algorithm>
#include <chrono>

#include "distributed/ddp/gradient_sync.h"
#include "distributed/sharding/distributed_optimizer.h"
#include "experiments/ddp/ddp_batches.h"
#include "experiments/ddp/step_timeline_recorder.h"
#include "model/fused/fused_lm.h"
#include "profiling/allocation_recorder.h"
#include "profiling/step_ranges.h"
#include "runners/device_backend.h"
#include "runners/engine_model.h"
#include "schema/value_format.h"

namespace stepscope {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point& mark) {
  const auto now = Clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - mark).count();
  mark = now;
  return ms;
}

}  // namespace

void DdpCase::choose_graphs(const DeviceBackend& backend) {
  const DdpConfig& c = result_.config;
  if (!model_->fused()) return;
  if (backend.device().is_cpu()) {
    graphs_note_ = "fused on the CPU: its operations run their LibTorch references (the fused kernels are CUDA's)";
    return;
  }
  if (!c.cuda_graphs) return;
  if (c.optimizer != distributed::OptimizerSharding::none) {
    graphs_note_ = "CUDA graphs off: the sharded optimizers decide on the host which rank updates what";
  } else if (c.warmup_steps < kGraphWarmupSteps) {
    graphs_note_ = "CUDA graphs off: they are captured in warm-up, which needs at least " +
                   std::to_string(kGraphWarmupSteps) + " steps";
  } else {
    graphs_ = make_step_graphs(backend.device());
  }
  result_.cuda_graphs_used = graphs_ != nullptr;
  if (graphs_ && c.profile_memory) {
    graphs_note_ = "CUDA graphs: memory was allocated when the step was captured in warm-up; the measured steps "
                   "replay it and allocate nothing";
  }
}

void DdpCase::load_batch(int step) {
  const DdpConfig& c = result_.config;
  const DdpBatch mine = rank_rows(global_batch(c, step), comm_.rank() * c.batch, c.batch, c10::Device(c10::kCPU));
  if (!inputs_.defined()) {
    inputs_ = mine.inputs.to(backend_->device());
    targets_ = mine.targets.to(backend_->device());
    return;
  }
  inputs_.copy_(mine.inputs);
  targets_.copy_(mine.targets);
}

void DdpCase::capture_step() {
  sync_->begin_step();  // the gradients come into being inside the graphs' pool
  capturing_ = true;
  try {
    graphs_->capture(StepPhaseGraph::forward, [&] { graph_loss_ = model_->loss(inputs_, targets_); });
    graphs_->capture(StepPhaseGraph::backward, [&] {
      graph_loss_.backward();
      backward_done_ = graphs_->mark();
      graph_comm_bytes_ = sync_->finish().bytes;  // the waits join the collectives' stream here
      sync_done_ = graphs_->mark();
    });
    graphs_->capture(StepPhaseGraph::optimizer, [&] { optimizer_->step(*sync_); });
  } catch (...) {
    capturing_ = false;
    throw;
  }
  capturing_ = false;
}

DdpCase::StepTimes DdpCase::train_step(StepTimelineRecorder* picture, profiling::AllocationRecorder* memory) {
  const int step = steps_run_++;
  load_batch(step);
  if (graphs_ && step == kGraphWarmupSteps - 1) capture_step();
  const bool replay = graphs_ && graphs_->captured(StepPhaseGraph::optimizer);
  StepTimes t;
  backend_->synchronize();
  if (picture) picture->start();
  const auto start = Clock::now();
  auto mark = start;
  // `name` ended; the memory record's band of `next` begins.
  const auto phase_done = [&](const char* name, const char* next) {
    backend_->synchronize();
    if (picture) picture->phase_done(name);
    if (memory) memory->mark_phase(next);
    return ms_since(mark);
  };
  if (memory) memory->mark_phase(profiling::step_ranges::kForward);
  at::Tensor loss;
  if (replay) {
    graphs_->replay(StepPhaseGraph::forward);
  } else {
    sync_->begin_step();
    optimizer_->begin_forward();
    loss = model_->loss(inputs_, targets_);
  }
  t.forward = phase_done(profiling::step_ranges::kForward, profiling::step_ranges::kBackward);
  if (replay) {
    graphs_->replay(StepPhaseGraph::backward);
  } else {
    loss.backward();
  }
  t.backward = phase_done(profiling::step_ranges::kBackward, profiling::step_ranges::kGradientSync);
  if (replay) {
    // The backward graph ends with the collectives' join: what it took after backward's last
    // kernel is the exposed part, timed on the device; the host makes no communication call.
    t.exposed = graphs_->elapsed_ms(backward_done_, sync_done_);
    if (t.exposed >= 0) t.backward = std::max(0.0, t.backward - t.exposed);
    t.comm = -1;
    t.bytes = graph_comm_bytes_;
  } else {
    const distributed::SyncTimings sync = sync_->finish();
    t.comm = sync.comm_ms;
    t.exposed = sync.exposed_ms;
    t.bytes = sync.bytes;
  }
  phase_done(profiling::step_ranges::kGradientSync, profiling::step_ranges::kOptimizerStep);
  if (replay) {
    graphs_->replay(StepPhaseGraph::optimizer);
  } else {
    optimizer_->step(*sync_);
    // The fused engine computes with its compute copy: from the parameters wherever they are.
    if (refresh_after_step_) model_->fused()->refresh_compute_copy_from_parameters();
  }
  t.optimizer = phase_done(profiling::step_ranges::kOptimizerStep, profiling::step_ranges::kStepEnd);
  if (memory) label_memory(*memory);  // gradients and (first step) optimizer state are new
  t.step = std::chrono::duration<double, std::milli>(mark - start).count();
  return t;
}

void DdpCase::run_step(const StepContext& step) {
  if (step.memory) step.memory->set_step(step.index, step.warmup);
  const StepTimes t = train_step(nullptr, step.memory);
  if (step.memory) step.memory->set_step(-1, false);
  if (!step.warmup) steps_.push_back(t);
}

// One more step after the measured ones, outside their means: recording costs time.
void DdpCase::picture_step() {
  const bool gpu = backend_->device().is_cuda();
  StepTimelineRecorder recorder(gpu ? profiling::make_cupti_activity_source() : nullptr);
  sync_->record_collectives(!recorder.records_kernels());
  train_step(&recorder, nullptr);
  sync_->record_collectives(false);
  for (const auto& span : sync_->take_collective_spans()) {
    recorder.add_collective("all_reduce " + std::to_string(span.index) + " (" + schema::bytes_text(static_cast<double>(span.bytes)) + ")",
                            span.start, span.done);
  }
  timeline_ = {result_.config, comm_.rank(), result_.config.measured_steps, recorder.finish()};
  timeline_note_ = recorder.note();
}

}  // namespace stepscope
