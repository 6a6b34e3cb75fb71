#include "charts/ddp_chart_data.h"

#include <algorithm>
#include <map>

#include "charts/chart_colors.h"
#include "charts/chart_limits.h"
#include "experiments/ddp/ddp_schema.h"
#include "profiling/step_ranges.h"
#include "schema/schema.h"
#include "schema/value_format.h"

namespace stepscope::views {

namespace {

double ms_at(const schema::Table& table, size_t row, const char* key) {
  const int c = table.column_index(key);
  if (c < 0 || static_cast<size_t>(c) >= table.rows[row].size()) return 0;
  return std::max(0.0, schema::number_of(table.rows[row][static_cast<size_t>(c)]).value_or(0));
}

}  // namespace

QString ddp_row_label(const DdpConfig& config) {
  QString label = QString::fromStdString(distributed::to_string(config.variant));
  if (config.variant == distributed::DdpVariant::bucketed) {
    label += QStringLiteral(" %1 MiB").arg(QString::fromStdString(schema::exact_number(config.bucket_mb)));
  }
  if (config.optimizer != distributed::OptimizerSharding::none) {
    label += QStringLiteral(" ") + QString::fromStdString(distributed::to_string(config.optimizer));
  }
  if (config.optimizer == distributed::OptimizerSharding::zero1 && config.zero1_gathers == distributed::Zero1Gathers::next_forward) {
    label += QStringLiteral(" (gathers in forward)");
  }
  // Eager and fused rows of one configuration stand side by side: the engine tells them apart.
  if (config.engine != EngineKind::eager) label += QStringLiteral(" ") + QString::fromStdString(to_string(config.engine));
  if (config.reduce_dtype != Precision::fp32) {
    label += QStringLiteral(" %1 reduce").arg(QString::fromStdString(to_string(config.reduce_dtype)));
  }
  return label + QStringLiteral(" x%1").arg(config.ranks);
}

const std::array<QString, kDdpPhaseCount>& ddp_phase_names() {
  static const std::array<QString, kDdpPhaseCount> names = {QStringLiteral("forward"), QStringLiteral("backward"),
                                                            QStringLiteral("exposed comm"), QStringLiteral("optimizer"),
                                                            QStringLiteral("other")};
  return names;
}

QColor ddp_phase_color(DdpPhase phase) {
  // The step phases keep the colours every other chart gives them; communication the kernel
  // charts' communication colour.
  switch (phase) {
    case DdpPhase::forward: return phase_color(QLatin1String(profiling::step_ranges::kForward));
    case DdpPhase::backward: return phase_color(QLatin1String(profiling::step_ranges::kBackward));
    case DdpPhase::exposed_comm: return kernel_category_color(profiling::KernelCategory::communication);
    case DdpPhase::optimizer: return phase_color(QLatin1String(profiling::step_ranges::kOptimizerStep));
    case DdpPhase::other: break;
  }
  return phase_color(QString());
}

DdpStepData build_ddp_step_data(const schema::Table& table) {
  DdpStepData data;
  if (table.schema != ddp_schema().id) return data;
  std::map<QString, int> repeats;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    DdpResult r;
    try {
      r = schema::read_row(ddp_schema(), table, i);
    } catch (const std::exception&) {
      continue;  // a variant of a newer build
    }
    // A bar axis drops repeated categories: a repeat gets "(2)", "(3)".
    QString label = ddp_row_label(r.config);
    if (const int seen = ++repeats[label]; seen > 1) label += QStringLiteral(" (%1)").arg(seen);
    data.labels.append(label);
    const double step = ms_at(table, i, "step_ms");
    const bool measured = r.status == RunStatus::ok && step > 0;
    data.failures.append(measured                       ? QString()
                         : r.status == RunStatus::ok ? QStringLiteral("not measured")
                                                     : QString::fromStdString(to_string(r.status)));
    std::array<double, kDdpPhaseCount> parts{};
    if (measured) {
      parts = {ms_at(table, i, "forward_ms"), ms_at(table, i, "backward_ms"), ms_at(table, i, "exposed_comm_ms"),
               ms_at(table, i, "optimizer_ms"), 0};
      double known = 0;
      for (size_t p = 0; p + 1 < kDdpPhaseCount; ++p) known += parts[p];
      parts[kDdpPhaseCount - 1] = std::max(0.0, step - known);
      // Drawn only when the chart can draw every segment and the bar's end (chart_limits.h).
      LeftOut bad;
      if (bad.keep({{step, QStringLiteral("step_ms")}, {parts[0], QStringLiteral("forward_ms")},
                    {parts[1], QStringLiteral("backward_ms")}, {parts[2], QStringLiteral("exposed_comm_ms")},
                    {parts[3], QStringLiteral("optimizer_ms")}, {known, QStringLiteral("the bar's end (ms)")}})) {
        data.max_ms = std::max(data.max_ms, std::max(step, known));
      } else {
        parts = {};
        data.failures.back() = QStringLiteral("left out (the table lists it): %1").arg(bad.first_reason());
      }
    }
    for (size_t p = 0; p < kDdpPhaseCount; ++p) data.ms[p].push_back(parts[p]);
  }
  return data;
}

}  // namespace stepscope::views
