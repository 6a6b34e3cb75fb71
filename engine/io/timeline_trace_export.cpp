#include "io/timeline_trace_export.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

namespace stepscope {

namespace {

using Json = nlohmann::ordered_json;

constexpr double kGapMs = 1.0;
constexpr int kRowsTrack = 0;

int track_of(TimelineLane lane) { return lane == TimelineLane::compute ? 1 : 2; }

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// What names a DDP row: its configuration as the table's identity columns.
using RowKey = std::tuple<int, double, int, int, int, int>;
RowKey row_key(const DdpConfig& c) {
  return {static_cast<int>(c.variant), c.variant == distributed::DdpVariant::bucketed ? c.bucket_mb : 0.0,
          static_cast<int>(c.optimizer), static_cast<int>(c.engine), static_cast<int>(c.reduce_dtype), c.ranks};
}

}  // namespace

void write_timeline_trace(std::ostream& out, const std::vector<TimelineRow>& rows) {
  // DDP rows in first-seen order, each with its length (the longest rank's last end).
  std::vector<RowKey> order;
  std::map<RowKey, double> length;
  std::map<RowKey, DdpConfig> config;
  std::set<int> ranks;
  for (const auto& r : rows) {
    const auto key = row_key(r.config);
    if (!length.count(key)) {
      order.push_back(key);
      length[key] = 0;
      config[key] = r.config;
    }
    length[key] = std::max(length[key], r.span.end_ms);
    ranks.insert(r.rank);
  }
  std::map<RowKey, double> offset;
  double at = 0;
  for (const auto& key : order) {
    offset[key] = at;
    at += length[key] + kGapMs;
  }
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  const auto emit = [&](const Json& j) {
    out << (first ? "" : ",\n") << dump(j);
    first = false;
  };
  for (int rank : ranks) {
    emit({{"name", "process_name"}, {"ph", "M"}, {"pid", rank}, {"tid", 0}, {"args", {{"name", "rank " + std::to_string(rank)}}}});
    emit({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", rank}, {"tid", 0}, {"args", {{"sort_index", rank}}}});
    emit({{"name", "thread_name"}, {"ph", "M"}, {"pid", rank}, {"tid", kRowsTrack}, {"args", {{"name", "rows"}}}});
    emit({{"name", "thread_name"}, {"ph", "M"}, {"pid", rank}, {"tid", 1}, {"args", {{"name", "compute"}}}});
    emit({{"name", "thread_name"}, {"ph", "M"}, {"pid", rank}, {"tid", 2}, {"args", {{"name", "communication"}}}});
    for (const auto& key : order) {
      emit({{"name", describe(config[key])}, {"ph", "X"}, {"cat", "row"}, {"pid", rank}, {"tid", kRowsTrack},
            {"ts", offset[key] * 1000.0}, {"dur", length[key] * 1000.0}});
    }
  }
  for (const auto& r : rows) {
    const double start = offset[row_key(r.config)] + r.span.start_ms;
    emit({{"name", r.span.name},
          {"ph", "X"},
          {"cat", to_string(r.span.lane)},
          {"pid", r.rank},
          {"tid", track_of(r.span.lane)},
          {"ts", start * 1000.0},
          {"dur", std::max(0.0, r.span.end_ms - r.span.start_ms) * 1000.0},
          {"args", {{"step", r.step}}}});
  }
  out << "\n]}\n";
}

}  // namespace stepscope
