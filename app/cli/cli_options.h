// Command-line options of stepscope-cli, parsed into plain structs. Every mistake is a
// CliError whose message names the option and what is wrong with it.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/device.h"
#include "experiments/bench/bench_sweep.h"
#include "schema/input_values.h"

namespace stepscope::cli {

class CliError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BenchOptions {
  SweepSpec spec;
  std::string csv_path;   // empty: CSV on stdout
  std::string json_path;  // empty: no JSON
  bool quiet = false;     // no progress on stderr
  bool help = false;
  bool short_kernel_names = false;  // --short-names: templates and arguments folded in kernels.csv
  size_t memory_points = 2000;       // --memory-points: timeline CSV rows (peaks are kept)
  std::shared_ptr<const schema::InputValues> inputs;  // as given: the run record keeps them
};

// Where the files of a profiled configuration go: beside --csv (or --json), named after it
// and the configuration, e.g. "results.small-ctx256-b4-fp32-train.kernels.csv".
std::string profile_output_stem(const BenchOptions& options, const BenchConfig& config);

struct CheckOptions {
  std::string checkpoint;
  std::string tokens;
  std::string targets;       // optional
  std::string logits_out;    // optional
  std::string adamw_out;     // optional; needs targets
  int64_t heads = 0;
  double rope_theta = 10000.0;
  Device device;  // the CPU by default
  bool help = false;
};

BenchOptions parse_bench_options(const std::vector<std::string>& args);
CheckOptions parse_check_options(const std::vector<std::string>& args);

std::string bench_usage();
std::string check_usage();
std::string main_usage();

}  // namespace stepscope::cli
