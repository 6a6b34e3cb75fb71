#include "charts/collective_chart_data.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "charts/axis_unit.h"
#include "experiments/collectives/collective_schema.h"
#include "schema/schema.h"

namespace stepscope::views {

namespace {

struct LineKey {
  std::string op, backend, dtype;
  int ranks = 0;
  auto tied() const { return std::tie(op, backend, ranks, dtype); }
  bool operator<(const LineKey& o) const { return tied() < o.tied(); }
};

QString name_of(const LineKey& key, const std::map<LineKey, size_t>& lines) {
  auto varies = [&](auto member) {
    return std::any_of(lines.begin(), lines.end(), [&](const auto& other) { return other.first.*member != key.*member; });
  };
  QString name = QString::fromStdString(key.op);
  if (varies(&LineKey::backend)) name += QStringLiteral(" ") + QString::fromStdString(key.backend);
  if (varies(&LineKey::ranks)) name += QStringLiteral(" x%1").arg(key.ranks);
  if (varies(&LineKey::dtype)) name += QStringLiteral(" ") + QString::fromStdString(key.dtype);
  return name;
}

}  // namespace

SweepChartData build_collective_chart_data(const schema::Table& table) {
  SweepChartData data;
  data.log_x = true;
  data.log_x_base = 10;
  data.x_title = QStringLiteral("size (MiB)");
  data.y_title = QStringLiteral("busbw (GB/s)");  // the chart's title says "bus bandwidth"
  if (table.schema != collective_schema().id) return data;
  const int busbw = table.column_index("busbw_gbps");
  std::vector<KeyedPoint<LineKey>> points;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    CollectiveResult r;
    try {
      r = schema::read_row(collective_schema(), table, i);
    } catch (const std::exception&) {
      continue;  // a row of a newer build
    }
    const LineKey key{to_string(r.config.op), to_string(r.config.backend), to_string(r.config.dtype), r.config.ranks};
    const auto y = busbw >= 0 ? schema::number_of(table.rows[i][static_cast<size_t>(busbw)]) : std::nullopt;
    points.push_back({key, static_cast<double>(r.config.size_bytes), y.value_or(-1), r.status});
  }
  // Sizes in the unit their largest reads in (KiB for nccl-tests' small sweeps, GiB for 1GB).
  double largest = 0;
  for (const auto& p : points) largest = std::max(largest, p.x);
  const AxisUnit unit = bytes_axis_unit(largest);
  for (auto& p : points) p.x = unit.shown(p.x);
  if (!points.empty()) data.x_title = unit.title(QStringLiteral("size"));
  fill_sweep_lines(data, points, name_of);
  return data;
}

}  // namespace stepscope::views
