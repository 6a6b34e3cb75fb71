#include <algorithm>
#include <ctime>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "core/config_error.h"
#include "cli/cli_options.h"
#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/console_table.h"
#include "cli/kernel_digest.h"
#include "cli/operator_digest.h"
#include "compat/torch_compat.h"
#include "io/chrome_trace_export.h"
#include "experiments/bench/bench_schema.h"
#include "io/csv_writer.h"
#include "io/kernel_summary_export.h"
#include "io/operator_profile_export.h"
#include "io/memory_export.h"
#include "io/memory_sweep_export.h"
#include "schema/value_format.h"
#include "io/output_file.h"
#include "io/run_record_json.h"
#include "io/table_csv.h"
#include "experiments/bench/bench_sweep.h"
#include "experiments/bench/step_benchmark.h"

namespace stepscope::cli {

namespace {

// The last note of each profiler that was printed.
struct ProfileMessages {
  std::string kernels, operators;
};

// "runs.csv" -> "runs.memory_sweep.csv".
std::string memory_sweep_path(const std::string& csv_path) {
  const std::string ext = ".csv";
  const size_t stem = csv_path.size() - ext.size();
  const bool has_ext = csv_path.size() > ext.size() && csv_path.compare(stem, ext.size(), ext) == 0;
  return (has_ext ? csv_path.substr(0, stem) : csv_path) + ".memory_sweep.csv";
}

// Says a profiler's note once, not for every configuration of a sweep.
void say_once(std::ostream& err, const char* what, const std::string& message, std::string& last_message) {
  if (message.empty() || message == last_message) return;
  err << what << ": " << message << '\n';
  last_message = message;
}

// The kernel and operator profiles of one configuration, as CSV tables and a Perfetto trace.
void write_profile_files(const BenchOptions& options, const BenchResult& result, std::ostream& err,
                         ProfileMessages& said) {
  if (!result.kernel_profile && !result.operator_profile) return;
  const std::string stem = profile_output_stem(options, result.config);
  if (result.kernel_profile) {
    const auto& profile = *result.kernel_profile;
    replace_file(stem + ".kernels.csv",
                 [&](std::ostream& f) { write_kernel_summary_csv(f, profile, options.short_kernel_names); });
    replace_file(stem + ".categories.csv", [&](std::ostream& f) { write_category_csv(f, profile); });
    replace_file(stem + ".gpu_steps.csv", [&](std::ostream& f) { write_step_gpu_usage_csv(f, profile); });
    replace_file(stem + ".cpu_ranges.csv", [&](std::ostream& f) { write_cpu_ranges_csv(f, profile); });
  }
  if (result.operator_profile) {
    const auto& profile = *result.operator_profile;
    replace_file(stem + ".operators.csv", [&](std::ostream& f) { write_operator_csv(f, profile); });
    replace_file(stem + ".operator_kernels.csv", [&](std::ostream& f) { write_operator_kernel_csv(f, profile); });
  }
  if (result.trace) {
    replace_file(stem + ".trace.json",
                 [&](std::ostream& f) { write_chrome_trace(f, *result.trace, "stepscope " + result.config.model.name); });
  }
  if (options.quiet) return;
  if (result.kernel_profile) {
    const auto& profile = *result.kernel_profile;
    err << "profile: " << stem << ".{kernels,categories,gpu_steps,cpu_ranges}.csv"
        << (result.trace ? " and .trace.json" : "") << '\n';
    say_once(err, "profile", profile.source_message, said.kernels);
    if (profile.dropped_records > 0) err << "profile: " << profile.dropped_records << " records were dropped\n";
    if (profile.untimed_records > 0) {
      err << "profile: " << profile.untimed_records << " kernel/copy records came without timestamps and were left out\n";
    }
    print_kernel_digest(err, result);
  }
  if (result.operator_profile) {
    const auto& profile = *result.operator_profile;
    err << "operators: " << stem << ".{operators,operator_kernels}.csv"
        << (result.trace && !result.kernel_profile ? " and .trace.json" : "") << '\n';
    say_once(err, "operators", profile.source_message, said.operators);
    print_operator_digest(err, result);
  }
  if (result.profiled.count > 0 && result.total.mean_ms > 0) {
    err << "profiled in " << result.profiled.count << " steps of their own after the measured ones, which ran untraced: "
        << schema::duration_ms_text(result.profiled.mean_ms) << " a step, "
        << schema::significant(result.profiled.mean_ms / result.total.mean_ms) << "x the measured step (what tracing cost)\n";
  }
}

// The memory timeline of one configuration: the device's allocations only.
void write_memory_files(const BenchOptions& options, const BenchResult& result, std::ostream& err) {
  if (!result.memory_timeline) return;
  const auto& timeline = *result.memory_timeline;
  const std::string stem = profile_output_stem(options, result.config);
  replace_file(stem + ".memory_timeline.csv",
               [&](std::ostream& f) { write_memory_timeline_csv(f, timeline, options.memory_points); });
  replace_file(stem + ".memory_peaks.csv", [&](std::ostream& f) { write_memory_peaks_csv(f, timeline); });
  replace_file(stem + ".largest_allocations.csv", [&](std::ostream& f) { write_largest_allocations_csv(f, timeline); });
  replace_file(stem + ".memory_categories.csv", [&](std::ostream& f) { write_memory_categories_csv(f, timeline); });
  if (result.allocator_snapshot) {
    replace_file(stem + ".memory_snapshot.pickle", [&](std::ostream& f) { f << *result.allocator_snapshot; });
  }
  if (options.quiet) return;
  err << "memory: " << stem << ".{memory_timeline,memory_peaks,largest_allocations,memory_categories}.csv";
  if (result.allocator_snapshot) err << " and .memory_snapshot.pickle (opens in https://pytorch.org/memory_viz)";
  err << '\n';
  if (timeline.truncated) {
    err << "memory: the record stopped at " << timeline.event_limit << " events (" << timeline.dropped_events
        << " more were not kept); raise --memory-events to see the whole run\n";
  }
}

}  // namespace

int run_bench_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  BenchOptions options;
  std::vector<BenchConfig> configs;
  try {
    options = parse_bench_options(args);
    if (options.help) {
      out << bench_usage();
      return kExitOk;
    }
    if (options.csv_path == "-") options.csv_path.clear();  // stdout, the default
    configs = expand(options.spec);
    for (const auto& config : configs) {
      try {
        check_runnable(config);
      } catch (const ConfigError& e) {
        if (e.field() == "device") throw CliError(std::string("--device: ") + e.what());
        throw;
      }
    }
    // Checked before the first step: a bad path must not cost a sweep's measurements.
    check_outputs({{"--csv", options.csv_path.empty() ? "-" : options.csv_path}, {"--json", options.json_path}});
  } catch (const CliError& error) {
    err << "stepscope-cli bench: error: " << error.what() << '\n';
    return kExitUsage;
  } catch (const ConfigError& error) {
    err << "stepscope-cli bench: error: " << error.what() << '\n';
    return kExitUsage;
  }

  const RunEnvironment environment = command_environment("bench", args);

  const auto& schema = bench_schema();
  const auto columns = schema.columns();
  std::vector<BenchResult> results;
  RunInputs inputs{"bench", {}};
  if (options.inputs) inputs.values = options.inputs->given_values();
  RunRecord record{environment, {}, {}, inputs};
  CsvWriter stdout_csv(out);
  if (options.csv_path.empty()) stdout_csv.write_row(csv_header(columns));
  ProfileMessages profile_messages;
  // Files are rewritten after every row, so an interruption keeps what was measured; devices
  // and pipes (/dev/null, >(...)) get the whole table once, at the end.
  const bool csv_each_row = !options.csv_path.empty() && is_rewritable_output(options.csv_path);
  const bool json_each_row = !options.json_path.empty() && is_rewritable_output(options.json_path);
  const auto write_csv = [&] {
    replace_file(options.csv_path, [&](std::ostream& file) { write_table_csv(file, schema.table(results)); });
  };
  // The run record the app stores and opens: `stepscope --open-file` shows it.
  const auto write_json = [&] {
    replace_file(options.json_path, [&](std::ostream& file) { file << write_run_record(record); });
  };
  const auto publish = [&](const BenchResult& result) {
    results.push_back(result);
    record.entries.push_back({result, result.memory_timeline});
    if (options.csv_path.empty()) {
      stdout_csv.write_row(csv_row(columns, schema.values(result)));
      out.flush();
    }
    if (csv_each_row) write_csv();
    if (json_each_row) write_json();
    write_profile_files(options, result, err, profile_messages);
    write_memory_files(options, result, err);
    // A sweep over forward and train modes also gets the handout's memory table.
    if (csv_each_row && has_memory_sweep(results)) {
      replace_file(memory_sweep_path(options.csv_path),
                   [&](std::ostream& f) { write_memory_sweep_csv(f, results); });
    }
  };

  StderrProgress progress(err);
  try {
    run_sweep(configs, options.quiet ? nullptr : &progress, &interrupt_flag(), publish);
    const bool failed = std::any_of(results.begin(), results.end(),
                                    [](const BenchResult& r) { return r.status == RunStatus::failed; });
    // How it ended, in the record once more: it reopens as "cancelled, 3 of 8".
    record.outcome = RunEnding{failed ? RunStatus::failed
                             : interrupt_flag().is_cancelled() ? RunStatus::cancelled
                                                               : RunStatus::ok,
                             configs.size()};
    if (!options.csv_path.empty() && !csv_each_row) write_csv();
    record.environment.concurrent_runs = concurrent_runs();
    if (!options.json_path.empty()) write_json();  // with how it ended and what ran beside it
  } catch (const std::exception& error) {
    err << "stepscope-cli bench: error: " << compat::error_message(error) << '\n';
    return kExitFailure;
  }
  if (!options.quiet) print_table(err, schema.table(results));
  if (!options.quiet && !record.environment.concurrent_runs.empty()) {
    err << "stepscope-cli bench: note: " << record.environment.concurrent_runs << "; its timings may be slower than alone\n";
  }
  if (options.csv_path.empty() && !out) {
    err << "stepscope-cli bench: standard output closed before the table was written"
        << (options.json_path.empty() ? "" : "; the results are in " + options.json_path) << '\n';
  }

  if (interrupt_flag().is_cancelled()) {
    err << "stepscope-cli bench: interrupted; " << results.size() << " of " << configs.size()
        << " configuration(s) written\n";
    return kExitInterrupted;
  }
  for (const auto& r : results) {
    if (r.status == RunStatus::failed) return kExitFailure;
  }
  return kExitOk;
}

}  // namespace stepscope::cli
