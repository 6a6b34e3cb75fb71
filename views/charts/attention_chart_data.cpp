#include "charts/attention_chart_data.h"

#include <set>

#include "charts/axis_unit.h"
#include "charts/chart_colors.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "experiments/attention/attention_reading.h"

namespace stepscope::views {

namespace {

// What stays fixed along a line.
struct LineKey {
  std::string impl, precision;
  int64_t head_dim = 0, batch = 0, heads = 0;
  bool causal = false;
  auto tied() const { return std::tie(impl, head_dim, precision, causal, batch, heads); }
  bool operator<(const LineKey& o) const { return tied() < o.tied(); }
};

LineKey key_of(const AttentionConfig& c) {
  return {to_string(c.impl), to_string(c.precision), c.head_dim, c.batch, c.heads, c.causal};
}

QString name_of(const LineKey& key, const std::map<LineKey, size_t>& lines) {
  auto varies = [&](auto member) {
    return std::any_of(lines.begin(), lines.end(), [&](const auto& other) { return other.first.*member != key.*member; });
  };
  QString name = QString::fromStdString(key.impl);
  if (varies(&LineKey::head_dim)) name += QStringLiteral(" d%1").arg(key.head_dim);
  if (varies(&LineKey::precision)) name += QStringLiteral(" ") + QString::fromStdString(key.precision);
  if (varies(&LineKey::causal)) name += key.causal ? QStringLiteral(" causal") : QStringLiteral(" full");
  if (varies(&LineKey::batch)) name += QStringLiteral(" b%1").arg(key.batch);
  if (varies(&LineKey::heads)) name += QStringLiteral(" h%1").arg(key.heads);
  return name;
}

double measure_of(const schema::Table& table, size_t row, AttentionMeasure measure) {
  const int c = table.column_index(measure == AttentionMeasure::forward_backward_time ? "fwd_bwd_ms" : "mem_before_bwd_bytes");
  if (c < 0) return -1;
  const auto value = schema::number_of(table.rows[row][static_cast<size_t>(c)]);
  if (!value) return -1;
  return *value;  // ms or bytes: the chart's unit is picked from all of them
}

bool passes(const AttentionConfig& c, const AttentionChartFilter& filter) {
  return (filter.head_dim <= 0 || c.head_dim == filter.head_dim) &&
         (filter.precision.isEmpty() || QString::fromStdString(to_string(c.precision)) == filter.precision);
}

}  // namespace

SweepChartData build_attention_chart_data(const schema::Table& table, AttentionMeasure measure,
                                          const AttentionChartFilter& filter) {
  SweepChartData data;
  data.log_x = true;
  data.x_title = QStringLiteral("sequence length");
  const bool time = measure == AttentionMeasure::forward_backward_time;
  // attention_rows skips unreadable rows, so keep the table's row index beside each.
  const auto rows = attention_rows(table);
  if (rows.size() != table.rows.size()) return data;  // a table this build cannot read whole
  std::vector<KeyedPoint<LineKey>> points;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!passes(rows[i].config, filter)) continue;
    points.push_back({key_of(rows[i].config), static_cast<double>(rows[i].config.seq), measure_of(table, i, measure),
                      rows[i].status});
  }
  // The axis' unit from the largest value: "memory before backward (GiB)", not 50,000 MiB.
  double largest = 0;
  for (const auto& p : points) largest = std::max(largest, p.y);
  const AxisUnit unit = time ? duration_axis_unit(largest) : bytes_axis_unit(largest);
  // Short: the chart's title says what is measured; at the smallest size the axis title fits.
  data.y_title = unit.title(time ? QStringLiteral("time") : QStringLiteral("memory"));
  for (auto& p : points) {
    if (p.y > 0) p.y = unit.shown(p.y);
  }
  fill_sweep_lines(data, points, name_of);
  // Each implementation in its own colour, the same in every chart and run, where it has one line.
  std::set<std::string> impls;
  for (const auto& p : points) impls.insert(p.key.impl);
  if (impls.size() == data.lines.size()) {
    for (auto& line : data.lines) line.color = implementation_color(line.name.section(QLatin1Char(' '), 0, 0));
  }
  return data;
}

std::vector<int64_t> attention_head_dims(const schema::Table& table) {
  std::vector<int64_t> out;
  for (const auto& r : attention_rows(table)) {
    if (std::find(out.begin(), out.end(), r.config.head_dim) == out.end()) out.push_back(r.config.head_dim);
  }
  return out;
}

std::vector<QString> attention_precisions(const schema::Table& table) {
  std::vector<QString> out;
  for (const auto& r : attention_rows(table)) {
    const QString p = QString::fromStdString(to_string(r.config.precision));
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

}  // namespace stepscope::views
