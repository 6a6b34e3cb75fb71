#include "models/profiled_steps_note.h"

#include <QCoreApplication>

#include "models/format.h"

namespace stepscope::views {

QString profiled_steps_note(const BenchResult& r) {
  if (r.profiled.count <= 0 || r.total.mean_ms <= 0) return {};
  return QCoreApplication::translate("ProfiledSteps",
                                     "traced in %1 step(s) of their own after the %2 measured one(s), which ran "
                                     "untraced: %3 a step traced, %4x the measured step")
      .arg(r.profiled.count)
      .arg(r.total.count)
      .arg(format_duration_ms(r.profiled.mean_ms))
      .arg(format_significant(r.profiled.mean_ms / r.total.mean_ms));
}

QString coming_profile_note(const BenchConfig& c, StepProfiler profiler) {
  const auto tr = [](const char* text) { return QCoreApplication::translate("ProfiledSteps", text); };
  const QString name = QString::fromStdString(describe(c));
  const bool kernels = profiler == StepProfiler::kernels;
  if (!(kernels ? c.profile_kernels : c.profile_operators)) {
    return (kernels ? tr("Running %1 without the kernel profiler.") : tr("Running %1 without the operator profiler."))
        .arg(name);
  }
  if (profiles_in_own_steps(c)) {
    return (kernels ? tr("Running %1: its %2 measured step(s) run untraced, then the kernel profiler traces %2 "
                         "step(s) of its own; their kernels show here as they are traced.")
                    : tr("Running %1: its %2 measured step(s) run untraced, then the operator profiler traces %2 "
                         "step(s) of its own; their operators show here when the configuration finishes."))
        .arg(name)
        .arg(c.measured_steps);
  }
  return (kernels ? tr("Running %1: the time of each range shows here from its first measured step.")
                  : tr("Running %1: its operators show here when the configuration finishes."))
      .arg(name);
}

}  // namespace stepscope::views
