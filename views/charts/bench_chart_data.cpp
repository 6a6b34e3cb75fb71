#include "charts/bench_chart_data.h"
#include "charts/chart_limits.h"
#include "profiling/step_ranges.h"

#include <QHash>
#include <algorithm>

namespace stepscope::views {

namespace {

const PhaseStats& phase_stats(const BenchResult& result, size_t phase) {
  switch (phase) {
    case 0: return result.forward;
    case 1: return result.backward;
    default: return result.optimizer;
  }
}

QString failure_text(RunStatus status) {
  switch (status) {
    case RunStatus::ok: return {};
    case RunStatus::out_of_memory: return QStringLiteral("out of memory");
    case RunStatus::failed: return QStringLiteral("failed");
    case RunStatus::cancelled: return QStringLiteral("cancelled");
  }
  return QStringLiteral("failed");
}

// Which implementation ran: "eager", "eager flash", "fused" (fused always uses flash).
QString implementation_label(const BenchConfig& config) {
  QString label = QString::fromStdString(to_string(config.engine));
  if (config.engine == EngineKind::eager && config.model.attention != AttentionImpl::naive) {
    label += QLatin1Char(' ') + QString::fromStdString(to_string(config.model.attention));
  }
  return label;
}

bool is_default_implementation(const BenchConfig& config) {
  return config.engine == EngineKind::eager && config.model.attention == AttentionImpl::naive;
}

}  // namespace

QString configuration_label(const BenchConfig& config, bool with_batch) {
  QString label = QStringLiteral("%1 ctx%2").arg(QString::fromStdString(config.model.name)).arg(config.context);
  if (with_batch) label += QStringLiteral(" b%1").arg(config.batch);
  label += QStringLiteral(" %1 %2").arg(QString::fromStdString(to_string(config.precision)),
                                       QString::fromStdString(to_string(config.mode)));
  if (!is_default_implementation(config)) label += QLatin1Char(' ') + implementation_label(config);
  return label;
}

QStringList configuration_labels(const std::vector<BenchResult>& results) {
  const bool batches_differ = std::any_of(results.begin(), results.end(), [&](const BenchResult& r) {
    return r.config.batch != results.front().config.batch;
  });
  QStringList labels;
  QHash<QString, int> seen;
  for (const auto& result : results) {
    // An import has no configuration of ours: its file names it.
    const QString label = is_import(result) ? QString::fromStdString(describe(result))
                                            : configuration_label(result.config, batches_differ);
    const int count = ++seen[label];
    labels << (count == 1 ? label : QStringLiteral("%1 (%2)").arg(label).arg(count));
  }
  return labels;
}

QStringList distinguishing_labels(const std::vector<BenchResult>& results) {
  // Only what tells the configurations apart ("ctx64", "ctx128"): a small chart's legend
  // would cut the shared "tiny ... fp32 train" into "tiny ctx...". One configuration keeps all.
  std::vector<QStringList> parts;
  for (const auto& result : results) {
    const BenchConfig& c = result.config;
    parts.push_back({QString::fromStdString(is_import(result) ? describe(result) : c.model.name),
                     QStringLiteral("ctx%1").arg(c.context),
                     QStringLiteral("b%1").arg(c.batch), QString::fromStdString(to_string(c.precision)),
                     QString::fromStdString(to_string(c.mode)), implementation_label(c)});
  }
  std::vector<bool> differs(6, results.size() <= 1);
  for (size_t i = 0; i < differs.size(); ++i) {
    for (const auto& p : parts) differs[i] = differs[i] || p[static_cast<qsizetype>(i)] != parts.front()[static_cast<qsizetype>(i)];
  }
  if (results.size() <= 1) {
    differs[2] = false;  // a lone configuration: the batch as before, unsaid
    differs[5] = !results.empty() && !is_default_implementation(results.front().config);
  }
  QStringList labels;
  QHash<QString, int> seen;
  for (size_t r = 0; r < parts.size(); ++r) {
    const QStringList& p = parts[r];
    QStringList kept;
    for (size_t i = 0; i < differs.size(); ++i) {
      if (differs[i]) kept << p[static_cast<qsizetype>(i)];
    }
    QString label = kept.isEmpty() ? p.join(QLatin1Char(' ')) : kept.join(QLatin1Char(' '));
    if (is_import(results[r])) label = p.front();  // its file: the rest are our settings, which it has none of
    const int count = ++seen[label];
    labels << (count == 1 ? label : QStringLiteral("%1 (%2)").arg(label).arg(count));
  }
  return labels;
}

const std::array<QString, kBenchPhaseCount>& bench_phase_names() {
  static const std::array<QString, kBenchPhaseCount> names = {
      QString(profiling::step_ranges::kForward), QString(profiling::step_ranges::kBackward),
      QString(profiling::step_ranges::kOptimizerStep)};
  return names;
}

BenchBarData build_bench_bar_data(const std::vector<BenchResult>& results) {
  BenchBarData data;
  data.labels = configuration_labels(results);
  for (auto& means : data.mean_ms) means.assign(results.size(), 0.0);
  for (size_t bar = 0; bar < results.size(); ++bar) {
    const BenchResult& result = results[bar];
    data.failures << failure_text(result.status);
    if (result.status != RunStatus::ok) continue;  // a gap, labelled by the chart
    if (is_import(result)) {
      // A profile's steps are not split into our phases: said where the bar would be.
      data.failures.back() = result.total.count > 0 ? QStringLiteral("imported: steps not split into phases")
                                                    : QStringLiteral("imported: no steps timed");
      continue;
    }
    // The bar's segments and whiskers, drawn only when the chart can draw every one of them.
    std::vector<ErrorBar> errors;
    LeftOut bad;
    double top = 0;
    for (size_t phase = 0; phase < kBenchPhaseCount; ++phase) {
      const PhaseStats& stats = phase_stats(result, phase);
      if (stats.count == 0) continue;  // the mode does not run it
      top += stats.mean_ms;
      const ErrorBar error{static_cast<int>(bar), phase, top, std::max(0.0, top - stats.std_ms), top + stats.std_ms};
      const QString name = bench_phase_names()[phase];
      if (!bad.keep({{stats.mean_ms, name + QStringLiteral(" (ms)")},
                     {stats.std_ms, name + QStringLiteral(" standard deviation (ms)")},
                     {error.high, QStringLiteral("the bar's end (ms)")}})) {
        break;
      }
      errors.push_back(error);
    }
    if (bad.count() > 0) {
      data.failures.back() = QStringLiteral("left out (the table lists it): %1").arg(bad.first_reason());
      continue;
    }
    for (const auto& error : errors) {
      data.phase_used[error.phase] = true;
      data.mean_ms[error.phase][bar] = phase_stats(result, error.phase).mean_ms;
      data.error_bars.push_back(error);
      data.max_ms = std::max(data.max_ms, error.high);
    }
  }
  return data;
}

std::vector<StepLine> build_step_lines(const std::vector<BenchResult>& results) {
  const QStringList labels = distinguishing_labels(results);  // a legend's: short
  std::vector<StepLine> lines;
  for (size_t r = 0; r < results.size(); ++r) {
    if (results[r].status != RunStatus::ok || results[r].steps.empty()) continue;
    StepLine line{labels[static_cast<qsizetype>(r)], {}};
    for (size_t i = 0; i < results[r].steps.size(); ++i) {
      line.points.append(QPointF(static_cast<double>(i), static_cast<double>(results[r].steps[i].total_ns) * 1e-6));
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace stepscope::views
