// What the kernel and operator views say of a run whose profilers traced steps of their own
// after the measured ones (BenchResult::profiled, on a GPU): that the measured steps ran
// untraced, and what tracing cost the traced ones; and, while a configuration runs, when its
// profile will show. One sentence each, for both views.
#pragma once

#include <QString>

#include "runners/bench_types.h"

namespace stepscope::views {

// Empty where the profilers watched the measured steps (the CPU) or no step was measured.
QString profiled_steps_note(const BenchResult& result);

enum class StepProfiler { kernels, operators };
// While `running` runs and the tab has no profile of it yet: when its `profiler`'s profile
// shows (on a GPU, after the measured steps, in the profiler's own steps), or that the
// configuration runs without that profiler.
QString coming_profile_note(const BenchConfig& running, StepProfiler profiler);

}  // namespace stepscope::views
