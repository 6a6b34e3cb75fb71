// What the overlap picture draws from a "ddp.timeline" table: for one DDP row (variant, bucket
// size, world size) and its first recorded step, two lanes per rank (compute, communication)
// on one ms axis, top to bottom "rank 0 compute", "rank 0 comm", "rank 1 compute", ...
// Compute spans are coloured by phase; overlapping spans of one lane and colour merge into
// bands for drawing (async all-reduces overlap), while the spans keep their names for tooltips.
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>
#include <utility>
#include <vector>

#include "experiments/ddp/ddp_types.h"
#include "schema/table.h"

namespace stepscope::views {

enum class TimelineCategory { forward, backward, optimizer, other, communication };
inline constexpr size_t kTimelineCategoryCount = 5;
// "forward", "backward", "optimizer", "other compute", "communication".
QString timeline_category_name(TimelineCategory category);
QColor timeline_category_color(TimelineCategory category);
// A compute span's category by its name, or for a kernel the phase before its name
// ("backward: sm90_xmma_gemm..."); "optimizer step" is the optimizer too; anything else
// (gradient sync, a kernel outside the phases) is other compute.
TimelineCategory compute_category(const std::string& name);

// Which DDP row a picture shows: the timeline table's identity columns.
struct TimelineRowKey {
  DdpConfig config;  // variant, bucket_mb (bucketed only), ranks
  QString label;     // ddp_row_label
  bool operator==(const TimelineRowKey& o) const;
};
// The rows the table has spans for, in order of first appearance.
std::vector<TimelineRowKey> timeline_row_keys(const schema::Table& table);

struct RankTimelineSpan {
  int lane = 0;  // index into RankTimelineData::lanes
  TimelineCategory category = TimelineCategory::other;
  QString name;
  double start_ms = 0, end_ms = 0;
};

struct RankTimelineData {
  QString title;            // "bucketed 10 MiB x2, measured step 0"
  QStringList lanes;        // top to bottom
  std::vector<int> ranks;   // the ranks drawn, each over its two lanes (compute, comm), in order
  std::vector<RankTimelineSpan> spans;  // by lane, then start
  double end_ms = 0;        // the latest end
  QString message;          // why there is nothing to draw; empty when spans exist
  int skipped_rows = 0;     // rows that could not be read (unknown lane, a newer build's)
  QString note;             // spans left out because the chart cannot draw their times, and why
};

RankTimelineData build_rank_timeline(const schema::Table& table, const TimelineRowKey& key);

// Merged intervals of one lane and category: what is filled.
struct TimelineBand {
  int lane = 0;
  TimelineCategory category = TimelineCategory::other;
  std::vector<std::pair<double, double>> intervals;  // disjoint, by start
};
std::vector<TimelineBand> timeline_bands(const RankTimelineData& data);

// The spans of `lane` within `tolerance_ms` of `ms`, named with their times (a tooltip's text).
QStringList spans_at(const RankTimelineData& data, int lane, double ms, double tolerance_ms = 0);

}  // namespace stepscope::views
