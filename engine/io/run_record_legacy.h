// Readers of the formats earlier builds wrote: "stepscope-run" version 1 (whole BenchResults
// through field lists) and "stepscope-bench" version 1 (the CLI's --json: CSV columns and
// steps). Internal to run_record_json.cpp; they throw JsonReadError naming the path.
#pragma once

#include "io/json_reader.h"
#include "io/run_record_json.h"

namespace stepscope::run_record_legacy {

RunRecord read_run_v1(const JsonAt& root);
RunRecord read_bench_v1(const JsonAt& root);

}  // namespace stepscope::run_record_legacy
