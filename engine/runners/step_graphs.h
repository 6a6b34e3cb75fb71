// A training step's phases captured as CUDA graphs and replayed: after warm-up, a step of the
// fused engine is three graph launches (forward, backward, optimizer) instead of hundreds of
// kernel launches, so small models stop being launch-bound. The phases stay apart so the
// step clock still times each one. CUDA builds only; elsewhere make_step_graphs gives nullptr.
#pragma once

#include <functional>
#include <memory>

#include <c10/core/Device.h>

namespace stepscope {

// Steps before the capture: the first runs eagerly (cuBLAS handles, kernel caches, NCCL
// communicators and the optimizer's state come into being outside any graph), the second is
// captured and then replayed.
inline constexpr int kGraphWarmupSteps = 2;

enum class StepPhaseGraph { forward = 0, backward = 1, optimizer = 2 };

class StepGraphs {
 public:
  virtual ~StepGraphs() = default;
  // Records `work` into the phase's graph without running it. Capture the phases in the order
  // they are replayed: they share one memory pool, so tensors made in one (the loss, saved
  // activations, gradients) stay valid for the next and for every replay.
  virtual void capture(StepPhaseGraph phase, const std::function<void()>& work) = 0;
  // Launches the phase's graph on the current stream.
  virtual void replay(StepPhaseGraph phase) = 0;
  virtual bool captured(StepPhaseGraph phase) const = 0;
  // Inside capture()'s work: a point in the stream's order that every replay of that graph
  // records, as an event node (host clocks see only a whole graph). Returns its index.
  virtual int mark() = 0;
  // After the replay that recorded both points has completed on the device: the milliseconds
  // between them; < 0 when the device cannot tell.
  virtual double elapsed_ms(int from, int to) const = 0;
};

// nullptr where the device is not a GPU or the build has no CUDA.
std::unique_ptr<StepGraphs> make_step_graphs(c10::Device device);

}  // namespace stepscope
