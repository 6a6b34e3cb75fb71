// What the sweep chart draws: mean step time against model size or context length, one line
// per configuration family (mode and precision, plus whatever else varies), from a sweep's
// results. Configurations that did not run are listed apart, to be marked on the x axis.
#pragma once

#include <QList>
#include <QPointF>
#include <QString>
#include <vector>

#include "runners/bench_types.h"

namespace stepscope::views {

enum class SweepAxis { model_size, context };

struct SweepLine {
  QString name;           // "train fp32", "train fp32 ctx512", "forward bf16 small b8"
  QList<QPointF> points;  // (x, mean total ms), by x
};

struct SweepFailure {
  QString line;  // the line it belongs to
  double x = 0;
  QString status;  // "OOM", "failed", "cancelled"
};

struct SweepChartData {
  SweepAxis axis = SweepAxis::context;
  QString x_title;  // "parameters (millions)" or "context length (tokens)"
  QString y_title;  // empty: mean step time (ms)
  bool log_x = false;  // lengths that double each step read better on a base-2 axis
  std::vector<SweepLine> lines;
  std::vector<SweepFailure> failures;
  double x_min = 0, x_max = 0;  // over lines and failures
  double y_min = 0, y_max = 0;  // over lines (positive times only)
  size_t hidden_lines = 0;      // lines past kMostSweepLines, left out
};

// More lines than this read as noise (and a legend of thousands draws for minutes): the
// first ones, in order of appearance, are drawn.
inline constexpr size_t kMostSweepLines = 12;

// x: parameters in millions (the result's count, else the model's) or the context length.
// Lines group the results equal in everything but x (model for size, context for context
// length; batch, precision, mode); a line's name is its mode and precision, then the other
// parts that differ between lines.
SweepChartData build_sweep_chart_data(const std::vector<BenchResult>& results, SweepAxis axis);

}  // namespace stepscope::views
