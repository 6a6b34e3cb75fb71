#include "charts/sweep_chart_data.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace stepscope::views {

namespace {

// What stays fixed along a line, in the order a name lists it.
struct LineKey {
  std::string mode, precision, model;  // model: empty on a model-size axis
  int64_t context = 0;                 // 0 on a context axis
  int64_t batch = 0;
  std::string implementation;  // "eager", "eager flash", "fused": each its own line
  bool operator<(const LineKey& o) const {
    return std::tie(mode, precision, model, context, batch, implementation) <
           std::tie(o.mode, o.precision, o.model, o.context, o.batch, o.implementation);
  }
};

std::string implementation_of(const BenchConfig& c) {
  std::string name = to_string(c.engine);
  if (c.engine == EngineKind::eager && c.model.attention != AttentionImpl::naive) name += " " + to_string(c.model.attention);
  return name;
}

LineKey key_of(const BenchConfig& c, SweepAxis axis) {
  return {to_string(c.mode), to_string(c.precision), axis == SweepAxis::context ? c.model.name : std::string(),
          axis == SweepAxis::model_size ? c.context : 0, c.batch, implementation_of(c)};
}

double x_of(const BenchResult& r, SweepAxis axis) {
  if (axis == SweepAxis::context) return static_cast<double>(r.config.context);
  const int64_t parameters = r.parameters > 0 ? r.parameters : parameter_count(r.config.model);
  return static_cast<double>(parameters) * 1e-6;
}

QString name_of(const LineKey& key, const std::map<LineKey, size_t>& lines) {
  auto varies = [&](auto member) {
    return std::any_of(lines.begin(), lines.end(), [&](const auto& other) { return other.first.*member != key.*member; });
  };
  QString name = QStringLiteral("%1 %2").arg(QString::fromStdString(key.mode), QString::fromStdString(key.precision));
  if (varies(&LineKey::model)) name += QStringLiteral(" ") + QString::fromStdString(key.model);
  if (varies(&LineKey::context)) name += QStringLiteral(" ctx%1").arg(key.context);
  if (varies(&LineKey::batch)) name += QStringLiteral(" b%1").arg(key.batch);
  if (varies(&LineKey::implementation)) name += QStringLiteral(" ") + QString::fromStdString(key.implementation);
  return name;
}

}  // namespace

SweepChartData build_sweep_chart_data(const std::vector<BenchResult>& results, SweepAxis axis) {
  SweepChartData data;
  data.axis = axis;
  data.x_title = axis == SweepAxis::model_size ? QStringLiteral("parameters (millions)")
                                               : QStringLiteral("context length (tokens)");
  std::map<LineKey, size_t> all;  // key -> line, lines in order of first appearance
  for (const auto& r : results) all.emplace(key_of(r.config, axis), all.size());
  std::map<LineKey, size_t> index;  // the lines drawn
  for (const auto& [key, i] : all) {
    if (i < kMostSweepLines) index.emplace(key, i);
  }
  data.hidden_lines = all.size() - index.size();
  data.lines.resize(index.size());
  for (const auto& [key, i] : index) data.lines[i].name = name_of(key, index);

  double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min, y_min = x_min, y_max = 0;
  LeftOut left_out;
  for (const auto& r : results) {
    const auto drawn = index.find(key_of(r.config, axis));
    if (drawn == index.end()) continue;
    const size_t line = drawn->second;
    const double x = x_of(r, axis);
    const bool ran = r.status == RunStatus::ok && r.total.count > 0 && r.total.mean_ms > 0;
    const ChartValue x_value{x, data.x_title};
    if (!(ran ? left_out.keep({x_value, {r.total.mean_ms, QStringLiteral("mean step time (ms)")}})
              : left_out.keep({x_value}))) {
      continue;
    }
    x_min = std::min(x_min, x);
    x_max = std::max(x_max, x);
    if (!ran) {
      const QString status = r.status == RunStatus::ok ? QStringLiteral("no steps")
                                                       : QString::fromStdString(to_string(r.status));
      data.failures.push_back({data.lines[line].name, x, status});
      continue;
    }
    data.lines[line].points.append(QPointF(x, r.total.mean_ms));
    y_min = std::min(y_min, r.total.mean_ms);
    y_max = std::max(y_max, r.total.mean_ms);
  }
  for (auto& line : data.lines) {
    std::stable_sort(line.points.begin(), line.points.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
  }
  if (x_min <= x_max) {
    data.x_min = x_min;
    data.x_max = x_max;
  }
  if (y_min <= y_max) {
    data.y_min = y_min;
    data.y_max = y_max;
  }
  data.note = left_out.note(QStringLiteral("configuration"), QStringLiteral("configurations"));
  return data;
}

}  // namespace stepscope::views
