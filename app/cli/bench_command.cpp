#include <ctime>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/console_table.h"
#include "cli/kernel_digest.h"
#include "compat/torch_compat.h"
#include "io/bench_export.h"
#include "io/chrome_trace_export.h"
#include "io/csv_writer.h"
#include "io/kernel_summary_export.h"
#include "io/memory_export.h"
#include "io/memory_sweep_export.h"
#include "runners/bench_sweep.h"
#include "runners/step_benchmark.h"

namespace stepscope::cli {

namespace {

CancelFlag g_cancel;

class StderrProgress final : public ProgressSink {
 public:
  explicit StderrProgress(std::ostream& err) : err_(err), interactive_(isatty(STDERR_FILENO) != 0) {}
  void on_progress(const Progress& p) override {
    const std::string head = "[" + std::to_string(p.config_index + 1) + "/" + std::to_string(p.config_count) + "] " +
                             p.config_label + ": " + p.phase;
    if (p.phase == "done") {
      if (interactive_) err_ << "\r\033[K";
      return;
    }
    const std::string counter =
        p.steps_in_phase > 0 ? " " + std::to_string(p.step) + "/" + std::to_string(p.steps_in_phase) : "";
    if (interactive_) {
      err_ << "\r\033[K" << head << counter << std::flush;
    } else if (p.step == 0) {  // a line per phase keeps logs short
      err_ << head << counter << '\n' << std::flush;
    }
  }

 private:
  std::ostream& err_;
  bool interactive_;
};

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

// Rewrites a whole output file, so that what was measured survives an interruption.
template <typename Write>
void rewrite_file(const std::string& path, Write write) {
  const std::string temporary = path + ".partial";
  {
    std::ofstream file(temporary, std::ios::trunc | std::ios::binary);
    if (!file) throw std::runtime_error("cannot write " + temporary);
    write(file);
    if (!file.flush()) throw std::runtime_error("writing " + temporary + " failed");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot replace " + path);
}

// "runs.csv" -> "runs.memory_sweep.csv".
std::string memory_sweep_path(const std::string& csv_path) {
  const std::string ext = ".csv";
  const size_t stem = csv_path.size() - ext.size();
  const bool has_ext = csv_path.size() > ext.size() && csv_path.compare(stem, ext.size(), ext) == 0;
  return (has_ext ? csv_path.substr(0, stem) : csv_path) + ".memory_sweep.csv";
}

void require_writable(const std::string& option, const std::string& path) {
  if (path.empty()) return;
  std::ofstream probe(path + ".partial");
  if (!probe) throw CliError(option + ": cannot write to '" + path + "'");
  probe.close();
  std::remove((path + ".partial").c_str());
}

// The kernel profile of one configuration, as CSV tables and a Perfetto trace.
void write_profile_files(const BenchOptions& options, const BenchResult& result, std::ostream& err,
                         std::string& last_message) {
  if (!result.kernel_profile) return;
  const auto& profile = *result.kernel_profile;
  const std::string stem = profile_output_stem(options, result.config);
  rewrite_file(stem + ".kernels.csv",
               [&](std::ostream& f) { write_kernel_summary_csv(f, profile, options.short_kernel_names); });
  rewrite_file(stem + ".categories.csv", [&](std::ostream& f) { write_category_csv(f, profile); });
  rewrite_file(stem + ".gpu_steps.csv", [&](std::ostream& f) { write_step_gpu_usage_csv(f, profile); });
  rewrite_file(stem + ".cpu_ranges.csv", [&](std::ostream& f) { write_cpu_ranges_csv(f, profile); });
  if (result.trace) {
    rewrite_file(stem + ".trace.json", [&](std::ostream& f) {
      write_chrome_trace(f, result.trace->ranges, result.trace->activity, "stepscope " + result.config.model.name);
    });
  }
  if (!options.quiet) {
    err << "profile: " << stem << ".{kernels,categories,gpu_steps,cpu_ranges}.csv"
        << (result.trace ? " and .trace.json" : "") << '\n';
    // Said once, not for every configuration of a sweep.
    if (!profile.source_message.empty() && profile.source_message != last_message) {
      err << "profile: " << profile.source_message << '\n';
      last_message = profile.source_message;
    }
    if (profile.dropped_records > 0) err << "profile: " << profile.dropped_records << " records were dropped\n";
    if (profile.untimed_records > 0) {
      err << "profile: " << profile.untimed_records << " kernel/copy records came without timestamps and were left out\n";
    }
    print_kernel_digest(err, result);
  }
}

// The memory timeline of one configuration: the device's allocations only.
void write_memory_files(const BenchOptions& options, const BenchResult& result, std::ostream& err) {
  if (!result.allocation_log) return;
  profiling::TimelineOptions timeline_options;
  timeline_options.include_warmup = false;  // peaks and largest allocations of the measured steps
  timeline_options.device = device_ordinal(result.config.device);
  const auto timeline = profiling::build_memory_timeline(*result.allocation_log, timeline_options);
  const std::string stem = profile_output_stem(options, result.config);
  rewrite_file(stem + ".memory_timeline.csv",
               [&](std::ostream& f) { write_memory_timeline_csv(f, timeline, options.memory_points); });
  rewrite_file(stem + ".memory_peaks.csv", [&](std::ostream& f) { write_memory_peaks_csv(f, timeline); });
  rewrite_file(stem + ".largest_allocations.csv", [&](std::ostream& f) { write_largest_allocations_csv(f, timeline); });
  if (result.allocator_snapshot) {
    rewrite_file(stem + ".memory_snapshot.pickle", [&](std::ostream& f) { f << *result.allocator_snapshot; });
  }
  if (options.quiet) return;
  err << "memory: " << stem << ".{memory_timeline,memory_peaks,largest_allocations}.csv";
  if (result.allocator_snapshot) err << " and .memory_snapshot.pickle (opens in https://pytorch.org/memory_viz)";
  err << '\n';
  if (timeline.truncated) {
    err << "memory: the record stopped at " << timeline.event_limit << " events (" << timeline.dropped_events
        << " more were not kept); raise --memory-events to see the whole run\n";
  }
}

}  // namespace

void request_cancel() { g_cancel.cancel(); }

int run_bench_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  BenchOptions options;
  std::vector<BenchConfig> configs;
  try {
    options = parse_bench_options(args);
    if (options.help) {
      out << bench_usage();
      return kExitOk;
    }
    configs = expand(options.spec);
    for (const auto& config : configs) check_runnable(config);
    require_writable("--csv", options.csv_path);
    require_writable("--json", options.json_path);
  } catch (const CliError& error) {
    err << "stepscope-cli bench: error: " << error.what() << '\n';
    return kExitUsage;
  } catch (const ConfigError& error) {
    err << "stepscope-cli bench: error: " << error.what() << '\n';
    return kExitUsage;
  }

  RunEnvironment environment{STEPSCOPE_VERSION, compat::libtorch_version(), "", utc_now()};
  for (const auto& arg : args) environment.command_line += (environment.command_line.empty() ? "" : " ") + arg;
  environment.command_line = "stepscope-cli bench " + environment.command_line;

  std::vector<BenchResult> results;
  CsvWriter stdout_csv(out);
  if (options.csv_path.empty()) stdout_csv.write_row(bench_csv_header());
  std::string last_profile_message;
  const auto publish = [&](const BenchResult& result) {
    results.push_back(result);
    if (options.csv_path.empty()) {
      stdout_csv.write_row(bench_csv_row(result));
      out.flush();
    } else {
      rewrite_file(options.csv_path, [&](std::ostream& file) { write_bench_csv(file, results); });
    }
    if (!options.json_path.empty()) {
      rewrite_file(options.json_path,
                   [&](std::ostream& file) { write_bench_json(file, results, environment); });
    }
    write_profile_files(options, result, err, last_profile_message);
    write_memory_files(options, result, err);
    // A sweep over forward and train modes also gets the handout's memory table.
    if (!options.csv_path.empty() && has_memory_sweep(results)) {
      rewrite_file(memory_sweep_path(options.csv_path),
                   [&](std::ostream& f) { write_memory_sweep_csv(f, results); });
    }
  };

  StderrProgress progress(err);
  try {
    run_sweep(configs, options.quiet ? nullptr : &progress, &g_cancel, publish);
  } catch (const std::exception& error) {
    err << "stepscope-cli bench: error: " << compat::error_message(error) << '\n';
    return kExitFailure;
  }
  if (!options.quiet) print_bench_table(err, results);

  if (g_cancel.is_cancelled()) {
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
