// A run's results as lossless JSON: the one file format of Stepscope. The CLI's --json, the
// run-history database and the files the app saves and opens all hold it.
//
// Version 2:
// {"format": "stepscope-run", "version": 2, "environment": {...},
//  "entries": [{"config": {...}, "row": {<bench schema columns>}, "steps_ns": [...],
//               "kernel_profile": {...} or null, "operator_profile": {...} or null,
//               "timeline": {...} or null, "imported_from": "trace.json.gz" (an imported profile's only)}, ...],
//  "tables": [{"schema": "precision.accumulate", "columns": [...], "rows": [...]}, ...],
//  "outcome": {"status": "cancelled", "planned": 16} or null}
// `entries` are the step benchmark's configurations: the row holds exactly the CSV's columns
// (bench_schema), numbers exact, missing values null; `tables` hold any other experiment's
// results with their columns, so they open as tables whatever the experiment.
//
// Also read: version 1 of "stepscope-run" (history databases and files of earlier builds) and
// "stepscope-bench" (the CLI's --json of earlier builds). Left out, being raw records too
// large to keep per run: BenchResult::trace, allocation_log and allocator_snapshot (read back
// as null). Timeline points are decimated (profiling::decimate keeps the peaks). Doubles are
// written in the shortest form that reads back to the same bits; NaN and infinities as the
// strings "NaN", "Infinity", "-Infinity". Invalid UTF-8 is replaced by U+FFFD on writing.
// Members unknown to this version are ignored; every known one must be present, but for
// "outcome" and an entry's "operator_profile" (added within version 3: absent in earlier
// files, read as null).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/run_environment.h"
#include "profiling/memory_timeline.h"
#include "runners/bench_types.h"
#include "schema/table.h"

namespace stepscope {

// A document that is not a run record this build can read; the message names the path of
// the offending value, e.g. "entries[2].row.context: expected an integer, got string".
class RunRecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunRecordEntry {
  BenchResult result;
  std::shared_ptr<const profiling::MemoryTimeline> timeline;  // null without memory profiling
};

// What a run was asked: its experiment's id and the inputs given, as typed (the descriptor's
// InputSchema reads them back), so that it reopens and re-runs with exactly these. Empty in
// records written before version 3.
struct RunInputs {
  std::string experiment;  // "attention", "precision.autocast", ...
  std::vector<std::pair<std::string, std::string>> values;  // key, text; a flag's text is ""
  bool operator==(const RunInputs& other) const { return experiment == other.experiment && values == other.values; }
};

// How a run ended: cut short (cancelled, failed) or not, and how many configurations it was
// asked to run, so that a file of a cancelled sweep reopens as "cancelled, 7 of 16".
struct RunEnding {
  RunStatus status = RunStatus::ok;  // ok: every configuration asked for ran
  size_t planned = 0;                // configurations asked for; 0 when not counted
  bool operator==(const RunEnding& other) const { return status == other.status && planned == other.planned; }
};

// One run: the step benchmark's configurations in run order, and other experiments' tables.
struct RunRecord {
  RunEnvironment environment;
  std::vector<RunRecordEntry> entries;
  std::vector<schema::Table> tables;
  RunInputs inputs = {};
  // How it ended; none: still running, or a record written before records said.
  std::optional<RunEnding> outcome = {};
};

inline constexpr size_t kRunRecordTimelinePoints = 4000;
inline constexpr int64_t kRunRecordVersion = 3;  // 3: the run's inputs

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
