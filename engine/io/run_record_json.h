// A run's results as lossless JSON, for the run-history database and shared run files: per
// configuration the whole BenchResult (kernel profile included) and the memory timeline.
//
// Left out, being raw records too large to keep per run: BenchResult::trace,
// allocation_log and allocator_snapshot (read back as null). Timeline points are decimated
// (profiling::decimate keeps the peaks); everything else is kept whole and exact: integers
// as 64-bit integers, doubles in the shortest form that reads back to the same bits, NaN and
// infinities as the strings "NaN", "Infinity", "-Infinity", enums by their to_string names.
// Strings that are not valid UTF-8 have the bad bytes replaced by U+FFFD on writing.
//
// {"format": "stepscope-run", "version": 1, "environment": {...},
//  "entries": [{"result": {...}, "timeline": {...} or null}, ...]}
// Members unknown to this version are ignored; every known one must be present.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/bench_export.h"
#include "profiling/memory_timeline.h"
#include "runners/bench_types.h"

namespace stepscope {

// A document that is not a run record this build can read; the message names the path of
// the offending value, e.g. "entries[2].result.config.context: expected an integer, got string".
class RunRecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunRecordEntry {
  BenchResult result;
  std::shared_ptr<const profiling::MemoryTimeline> timeline;  // null without memory profiling
};

// One run: a single configuration or a sweep, in run order.
struct RunRecord {
  RunEnvironment environment;
  std::vector<RunRecordEntry> entries;
};

inline constexpr size_t kRunRecordTimelinePoints = 4000;

nlohmann::json to_json(const RunRecord& record, size_t max_timeline_points = kRunRecordTimelinePoints);
// Throws RunRecordError; never returns a partly read record.
RunRecord run_record_from_json(const nlohmann::json& document);

// Compact JSON text (machine-read; a sweep's timelines make indentation costly).
std::string write_run_record(const RunRecord& record, size_t max_timeline_points = kRunRecordTimelinePoints);
// Throws RunRecordError, also for malformed JSON.
RunRecord read_run_record(const std::string& text);

// Writes a temporary file beside `path` and renames it over `path`, so that readers never
// see half a record. Throw RunRecordError naming the file.
void write_run_record_file(const std::string& path, const RunRecord& record,
                           size_t max_timeline_points = kRunRecordTimelinePoints);
RunRecord read_run_record_file(const std::string& path);

}  // namespace stepscope
