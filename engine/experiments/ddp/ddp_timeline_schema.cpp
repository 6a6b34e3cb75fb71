#include "experiments/ddp/ddp_timeline_schema.h"

#include "experiments/ddp/ddp_row_fields.h"
#include "core/config_error.h"

namespace stepscope {

using schema::Column;
using schema::ColumnKind;
using schema::ColumnRole;
using schema::Value;
using schema::value_if;

std::string to_string(TimelineLane lane) { return lane == TimelineLane::compute ? "compute" : "communication"; }

TimelineLane parse_timeline_lane(const std::string& text) {
  if (text == "compute") return TimelineLane::compute;
  if (text == "communication") return TimelineLane::communication;
  throw ConfigError("unknown timeline lane \"" + text + "\" (compute, communication)", "lane");
}

namespace {


schema::Schema<TimelineRow> make_schema() {
  using Row = TimelineRow;
  schema::Schema<Row> s{"ddp.timeline", {}};
  auto& f = s.fields;
  add_ddp_row_fields(s);
  f.push_back({Column{"rank", "Rank", ColumnKind::integer, ColumnRole::identity},
               [](const Row& r) { return Value(int64_t{r.rank}); },
               [](Row& r, const Value& v) { r.rank = static_cast<int>(schema::integer_of(v)); }});
  f.push_back({Column{"step", "Step", ColumnKind::integer, ColumnRole::identity, "The step shown: one more after the measured ones, outside their means"},
               [](const Row& r) { return Value(int64_t{r.step}); },
               [](Row& r, const Value& v) { r.step = static_cast<int>(schema::integer_of(v)); }});
  f.push_back({Column{"lane", "Lane", ColumnKind::text, ColumnRole::identity, "compute or communication"},
               [](const Row& r) { return Value(to_string(r.span.lane)); },
               [](Row& r, const Value& v) { r.span.lane = parse_timeline_lane(schema::text_of(v)); }});
  f.push_back({Column{"name", "What", ColumnKind::text, ColumnRole::identity},
               [](const Row& r) { return Value(r.span.name); },
               [](Row& r, const Value& v) { r.span.name = schema::text_of(v); }});
  f.push_back({Column{"start_ms", "Start", ColumnKind::milliseconds, ColumnRole::measure,
                      "From this rank's step start"},
               [](const Row& r) { return Value(r.span.start_ms); },
               [](Row& r, const Value& v) { r.span.start_ms = schema::number_of(v).value_or(0); }});
  f.push_back({Column{"end_ms", "End", ColumnKind::milliseconds, ColumnRole::measure, "From this rank's step start"},
               [](const Row& r) { return Value(r.span.end_ms); },
               [](Row& r, const Value& v) { r.span.end_ms = schema::number_of(v).value_or(0); }});
  return s;
}

}  // namespace

const schema::Schema<TimelineRow>& ddp_timeline_schema() {
  static const auto schema = make_schema();
  return schema;
}

std::vector<TimelineRow> timeline_rows(const RankStepTimeline& timeline) {
  std::vector<TimelineRow> rows;
  rows.reserve(timeline.spans.size());
  for (const auto& span : timeline.spans) rows.push_back({timeline.config, timeline.rank, timeline.step, span});
  return rows;
}

}  // namespace stepscope
