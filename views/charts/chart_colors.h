// The one place where chart colours are chosen, so that a category has the same colour in
// every chart. Palettes are colour-blind safe: Okabe-Ito for memory categories, phases and
// series; Paul Tol's "muted" for the ten kernel categories.
#pragma once

#include <QColor>
#include <QString>

#include "profiling/kernel_profile.h"
#include "profiling/memory_events.h"

namespace stepscope::views {

QColor memory_category_color(profiling::MemoryCategory category);
QColor kernel_category_color(profiling::KernelCategory category);
// Step phases by their range/mark name: "forward", "backward", "optimizer step"; grey for
// any other name ("step end", "measured window").
QColor phase_color(const QString& phase);
// Marks of configurations that did not run (out of memory, failed): a dark red that stays
// readable as text.
QColor failure_color();
// Attention implementations by name ("naive", "sdpa", "flash"): the same in every chart.
QColor implementation_color(const QString& implementation);
// Lines of a multi-series chart (configurations, sweep lines), cycling after eight.
QColor series_color(int index);

}  // namespace stepscope::views
