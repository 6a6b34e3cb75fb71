// Benchmark results as CSV (one row per configuration) and JSON (rows plus every step).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "runners/bench_types.h"

namespace stepscope {

// Where the numbers were taken; written into the JSON so a file says what produced it.
struct RunEnvironment {
  std::string stepscope_version;
  std::string libtorch_version;
  std::string command_line;
  std::string started_at;  // ISO 8601, UTC
};

std::vector<std::string> bench_csv_header();
std::vector<std::string> bench_csv_row(const BenchResult& result);
void write_bench_csv(std::ostream& out, const std::vector<BenchResult>& results);
void write_bench_json(std::ostream& out, const std::vector<BenchResult>& results, const RunEnvironment& environment);

}  // namespace stepscope
