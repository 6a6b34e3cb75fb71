#include "charts/rank_timeline_data.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "charts/chart_limits.h"
#include "charts/ddp_chart_data.h"
#include "experiments/ddp/ddp_timeline_schema.h"
#include "profiling/step_ranges.h"

namespace stepscope::views {

namespace {

bool same_row(const DdpConfig& a, const DdpConfig& b) {
  if (a.variant != b.variant || a.ranks != b.ranks || a.optimizer != b.optimizer) return false;
  return a.variant != distributed::DdpVariant::bucketed || a.bucket_mb == b.bucket_mb;
}

// What a table must have to be drawn at all.
QString missing_column(const schema::Table& table) {
  for (const char* key : {"variant", "nproc", "rank", "lane", "start_ms", "end_ms"}) {
    if (table.column_index(key) < 0) return QString::fromLatin1(key);
  }
  return {};
}

}  // namespace

QString timeline_category_name(TimelineCategory category) {
  switch (category) {
    case TimelineCategory::forward: return QStringLiteral("forward");
    case TimelineCategory::backward: return QStringLiteral("backward");
    case TimelineCategory::optimizer: return QStringLiteral("optimizer");
    case TimelineCategory::other: return QStringLiteral("other compute");
    case TimelineCategory::communication: return QStringLiteral("communication");
  }
  return {};
}

QColor timeline_category_color(TimelineCategory category) {
  switch (category) {
    case TimelineCategory::forward: return ddp_phase_color(DdpPhase::forward);
    case TimelineCategory::backward: return ddp_phase_color(DdpPhase::backward);
    case TimelineCategory::optimizer: return ddp_phase_color(DdpPhase::optimizer);
    case TimelineCategory::communication: return ddp_phase_color(DdpPhase::exposed_comm);
    case TimelineCategory::other: break;
  }
  return ddp_phase_color(DdpPhase::other);
}

TimelineCategory compute_category(const std::string& span_name) {
  // A kernel is named after the phase it ran in: "backward: sm90_xmma_gemm...".
  const auto separator = span_name.find(profiling::step_ranges::kPhaseSeparator);
  const std::string name = separator == std::string::npos ? span_name : span_name.substr(0, separator);
  if (name == profiling::step_ranges::kForward) return TimelineCategory::forward;
  if (name == profiling::step_ranges::kBackward) return TimelineCategory::backward;
  if (name == "optimizer" || name == profiling::step_ranges::kOptimizerStep) return TimelineCategory::optimizer;
  return TimelineCategory::other;
}

bool TimelineRowKey::operator==(const TimelineRowKey& o) const { return same_row(config, o.config); }

std::vector<TimelineRowKey> timeline_row_keys(const schema::Table& table) {
  std::vector<TimelineRowKey> keys;
  if (table.schema != ddp_timeline_schema().id || !missing_column(table).isEmpty()) return keys;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    try {
      const TimelineRow row = schema::read_row(ddp_timeline_schema(), table, i);
      TimelineRowKey key{row.config, ddp_row_label(row.config)};
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    } catch (const std::exception&) {
      // An unknown variant or lane: not drawn either.
    }
  }
  return keys;
}

RankTimelineData build_rank_timeline(const schema::Table& table, const TimelineRowKey& key) {
  RankTimelineData data;
  if (table.schema != ddp_timeline_schema().id) {
    data.message = QStringLiteral("No overlap picture: the table is not a ddp.timeline table");
    return data;
  }
  if (const QString missing = missing_column(table); !missing.isEmpty()) {
    data.message = QStringLiteral("No overlap picture: the timeline table has no '%1' column").arg(missing);
    return data;
  }
  std::vector<TimelineRow> rows;
  LeftOut left_out;  // spans the chart cannot draw (chart_limits.h)
  for (size_t i = 0; i < table.rows.size(); ++i) {
    if (table.rows[i].size() != table.columns.size()) {
      ++data.skipped_rows;  // a row cut short: its columns cannot be trusted
      continue;
    }
    try {
      TimelineRow row = schema::read_row(ddp_timeline_schema(), table, i);
      const bool sane = std::isfinite(row.span.start_ms) && std::isfinite(row.span.end_ms) &&
                        row.span.end_ms >= row.span.start_ms && row.rank >= 0;
      if (!sane) {
        ++data.skipped_rows;
      } else if (same_row(row.config, key.config) &&
                 left_out.keep({{row.span.start_ms, QStringLiteral("start_ms")}, {row.span.end_ms, QStringLiteral("end_ms")}})) {
        rows.push_back(std::move(row));
      }
    } catch (const std::exception&) {
      ++data.skipped_rows;
    }
  }
  data.note = left_out.note(QStringLiteral("span"), QStringLiteral("spans"));
  if (rows.empty()) {
    data.message = !data.note.isEmpty() ? data.note
                   : key.label.isEmpty() ? QStringLiteral("No overlap picture: no spans recorded")
                                         : QStringLiteral("No spans recorded for %1").arg(key.label);
    return data;
  }
  // One step per picture: the first recorded.
  const int step = std::min_element(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.step < b.step; })->step;
  std::map<int, int> rank_lane;  // rank -> its compute lane
  for (const auto& row : rows) {
    if (row.step == step) rank_lane.emplace(row.rank, 0);
  }
  for (auto& [rank, lane] : rank_lane) {
    lane = static_cast<int>(data.lanes.size());
    data.lanes << QStringLiteral("rank %1 compute").arg(rank) << QStringLiteral("rank %1 comm").arg(rank);
    data.ranks.push_back(rank);
  }
  for (const auto& row : rows) {
    if (row.step != step) continue;
    const bool comm = row.span.lane == TimelineLane::communication;
    data.spans.push_back({rank_lane[row.rank] + (comm ? 1 : 0),
                          comm ? TimelineCategory::communication : compute_category(row.span.name),
                          QString::fromStdString(row.span.name), row.span.start_ms, row.span.end_ms});
    data.end_ms = std::max(data.end_ms, row.span.end_ms);
  }
  std::stable_sort(data.spans.begin(), data.spans.end(), [](const auto& a, const auto& b) {
    return a.lane != b.lane ? a.lane < b.lane : a.start_ms < b.start_ms;
  });
  data.title = QStringLiteral("%1, step %2 (recorded after the measured ones)").arg(key.label).arg(step);
  return data;
}

std::vector<TimelineBand> timeline_bands(const RankTimelineData& data) {
  std::map<std::pair<int, int>, TimelineBand> bands;  // (lane, category)
  for (const auto& span : data.spans) {  // by lane and start: each band's intervals come in order
    auto& band = bands[{span.lane, static_cast<int>(span.category)}];
    band.lane = span.lane;
    band.category = span.category;
    if (!band.intervals.empty() && span.start_ms <= band.intervals.back().second) {
      band.intervals.back().second = std::max(band.intervals.back().second, span.end_ms);
    } else {
      band.intervals.emplace_back(span.start_ms, span.end_ms);
    }
  }
  std::vector<TimelineBand> out;
  out.reserve(bands.size());
  for (auto& [key, band] : bands) out.push_back(std::move(band));
  return out;
}

QStringList spans_at(const RankTimelineData& data, int lane, double ms, double tolerance_ms) {
  QStringList names;
  for (const auto& span : data.spans) {
    if (span.lane == lane && span.start_ms - tolerance_ms <= ms && ms <= span.end_ms + tolerance_ms) {
      names << QStringLiteral("%1 (%2 - %3 ms)")
                   .arg(span.name, QString::number(span.start_ms, 'f', 3), QString::number(span.end_ms, 'f', 3));
    }
  }
  return names;
}

}  // namespace stepscope::views
