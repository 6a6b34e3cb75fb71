// What the sweep chart draws: mean step time against model size or context length, one line
// per configuration family (mode and precision, plus whatever else varies), from a sweep's
// results. Configurations that did not run are listed apart, to be marked on the x axis.
#pragma once

#include <QColor>
#include <QList>
#include <QPointF>
#include <QString>
#include <algorithm>
#include <limits>
#include <map>
#include <vector>

#include "charts/chart_limits.h"
#include "runners/bench_types.h"

namespace stepscope::views {

enum class SweepAxis { model_size, context };

struct SweepLine {
  QString name;           // "train fp32", "train fp32 ctx512", "forward bf16 small b8"
  QList<QPointF> points;  // (x, mean total ms), by x
  QColor color = {};      // the line's reserved colour (chart_colors.h); invalid: by its index
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
  double log_x_base = 2;  // 10 for sizes given in decades (1 MB, 10 MB, ...)
  std::vector<SweepLine> lines;
  std::vector<SweepFailure> failures;
  double x_min = 0, x_max = 0;  // over lines and failures
  double y_min = 0, y_max = 0;  // over lines (positive times only)
  size_t hidden_lines = 0;      // lines past kMostSweepLines, left out
  QString note;                 // points left out because the chart cannot draw them, and why
};

// More lines than this read as noise (and a legend of thousands draws for minutes): the
// first ones, in order of appearance, are drawn.
inline constexpr size_t kMostSweepLines = 12;

// One result before it is drawn: the line it belongs to (an ordered key), its x, its y (<= 0:
// none) and whether it ran.
template <class Key>
struct KeyedPoint {
  Key key;
  double x = 0, y = -1;
  RunStatus status = RunStatus::ok;
};

// Lines in order of first appearance (at most kMostSweepLines), named by `name_of(key, lines)`,
// their points sorted by x; results that did not run become failure marks; ranges over both.
// Points with a value the chart cannot draw (chart_limits.h) are left out and counted in the note.
template <class Key, class NameOf>
void fill_sweep_lines(SweepChartData& data, const std::vector<KeyedPoint<Key>>& points, NameOf name_of) {
  std::map<Key, size_t> all;
  for (const auto& p : points) all.emplace(p.key, all.size());
  std::map<Key, size_t> index;
  for (const auto& [key, i] : all) {
    if (i < kMostSweepLines) index.emplace(key, i);
  }
  data.hidden_lines = all.size() - index.size();
  data.lines.resize(index.size());
  for (const auto& [key, i] : index) data.lines[i].name = name_of(key, index);
  double x_min = std::numeric_limits<double>::max(), x_max = 0;
  double y_min = std::numeric_limits<double>::max(), y_max = 0;
  LeftOut left_out;
  for (const auto& p : points) {
    const auto line = index.find(p.key);
    if (line == index.end()) continue;
    const ChartValue x{p.x, data.x_title, data.log_x};
    const bool drawn = p.status == RunStatus::ok && p.y > 0;
    if (!(drawn ? left_out.keep({x, {p.y, data.y_title, false}}) : left_out.keep({x}))) continue;
    x_min = std::min(x_min, p.x);
    x_max = std::max(x_max, p.x);
    if (drawn) {
      data.lines[line->second].points.append({p.x, p.y});
      y_min = std::min(y_min, p.y);
      y_max = std::max(y_max, p.y);
    } else if (p.status != RunStatus::ok) {
      data.failures.push_back({data.lines[line->second].name, p.x, QString::fromStdString(to_string(p.status))});
    }
  }
  for (auto& line : data.lines) {
    std::sort(line.points.begin(), line.points.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
  }
  if (x_max > 0) {
    data.x_min = x_min;
    data.x_max = x_max;
  }
  if (y_max > 0) {
    data.y_min = y_min;
    data.y_max = y_max;
  }
  data.note = left_out.note(QStringLiteral("point"), QStringLiteral("points"));
}

// x: parameters in millions (the result's count, else the model's) or the context length.
// Lines group the results equal in everything but x (model for size, context for context
// length; batch, precision, mode); a line's name is its mode and precision, then the other
// parts that differ between lines.
SweepChartData build_sweep_chart_data(const std::vector<BenchResult>& results, SweepAxis axis);

}  // namespace stepscope::views
