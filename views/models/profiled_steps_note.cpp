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

}  // namespace stepscope::views
