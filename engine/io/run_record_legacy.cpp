#include "io/run_record_legacy.h"

#include <algorithm>

#include "experiments/bench/bench_schema.h"
#include "io/run_record_codec.h"
#include "io/table_json.h"

namespace stepscope::run_record_legacy {

using run_record_codec::read;

RunRecord read_run_v1(const JsonAt& root) {
  RunRecord record;
  read(root, record);  // field lists of version 1: environment, entries of whole results
  return record;
}

RunRecord read_bench_v1(const JsonAt& root) {
  RunRecord record;
  read(root.member("environment"), record.environment);
  const auto& schema = bench_schema();
  const auto columns = schema.columns();
  const JsonAt results = root.member("results");
  for (size_t i = 0; i < results.array_size(); ++i) {
    const JsonAt at = results.element(i);
    RunRecordEntry entry;
    BenchResult& r = entry.result;
    read(at.member("steps_ns"), r.steps);
    const auto values = row_from_json(at, columns);
    for (size_t c = 0; c < columns.size(); ++c) {
      if (!schema.fields[c].set) continue;
      try {
        schema.fields[c].set(r, values[c]);
      } catch (const std::invalid_argument& e) {
        at.member(columns[c].key).fail(e.what());
      }
    }
    // What that format did not keep: the model's context is the run's, the steps asked for
    // those measured.
    r.config.model.context_length = r.config.context;
    r.config.measured_steps = std::max(1, static_cast<int>(r.steps.size()));
    record.entries.push_back(std::move(entry));
  }
  return record;
}

}  // namespace stepscope::run_record_legacy
