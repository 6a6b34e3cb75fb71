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
  const JsonAt results = root.member("results");
  for (size_t i = 0; i < results.array_size(); ++i) {
    const JsonAt at = results.element(i);
    RunRecordEntry entry;
    BenchResult& r = entry.result;
    read(at.member("steps_ns"), r.steps);
    read_stored_fields(at, schema, r);
    // What that format did not keep: the model's context is the run's, the steps asked for
    // those measured.
    r.config.model.context_length = r.config.context;
    r.config.measured_steps = std::max(1, static_cast<int>(r.steps.size()));
    record.entries.push_back(std::move(entry));
  }
  return record;
}

}  // namespace stepscope::run_record_legacy
