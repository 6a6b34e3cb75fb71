// Run records for the compare tests, built with hand-picked numbers: a tiny-model bench entry
// of a given step time and spread, a record of entries, a row by its key, the gate's rule.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compare/regression_gate.h"
#include "compare/run_comparison.h"
#include "io/run_record_json.h"

namespace stepscope::compare::records {

// A bench configuration of the tiny model whose step took `mean_ms` ± `std_ms` over `steps`.
inline RunRecordEntry bench_entry(int64_t context, int64_t batch, double mean_ms, double std_ms, int steps,
                           int64_t peak_bytes = -1) {
  RunRecordEntry e;
  BenchResult& r = e.result;
  r.config.model = model_preset("tiny");
  r.config.context = context;
  r.config.batch = batch;
  r.config.mode = StepMode::train;
  r.steps.assign(static_cast<size_t>(steps), StepTiming{});
  r.total = PhaseStats{mean_ms, std_ms, mean_ms, mean_ms, mean_ms, steps};
  r.peak_memory_bytes = peak_bytes;
  return e;
}

inline RunRecord record_of(std::vector<RunRecordEntry> entries) {
  RunRecord record;
  record.entries = std::move(entries);
  return record;
}

inline const ComparisonRow* find_row(const Comparison& c, const std::string& key, const std::string& configuration_part = "") {
  for (const auto& r : c.rows) {
    if (r.metric_key == key && r.configuration.find(configuration_part) != std::string::npos) return &r;
  }
  return nullptr;
}

inline GateRule slower(const std::string& text) {
  GateRule rule;
  rule.slower = parse_thresholds(text, "fail-if-slower");
  return rule;
}

inline Comparison gated(const RunRecord& a, const RunRecord& b, const GateRule& rule) {
  Comparison c = compare_runs(a, b);
  apply_gate(c, rule);
  return c;
}

}  // namespace stepscope::compare::records
