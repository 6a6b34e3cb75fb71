// What the kernel and operator views say of a run whose profilers traced steps of their own
// after the measured ones (BenchResult::profiled, on a GPU): that the measured steps ran
// untraced, and what tracing cost the traced ones. One sentence, for both views.
#pragma once

#include <QString>

#include "runners/bench_types.h"

namespace stepscope::views {

// Empty where the profilers watched the measured steps (the CPU) or no step was measured.
QString profiled_steps_note(const BenchResult& result);

}  // namespace stepscope::views
