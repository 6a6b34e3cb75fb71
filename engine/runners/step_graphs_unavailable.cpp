// Builds without CUDA have no graphs: every step runs its kernels one by one.
#include "runners/step_graphs.h"

namespace stepscope {

std::unique_ptr<StepGraphs> make_step_graphs(c10::Device) { return nullptr; }

}  // namespace stepscope
