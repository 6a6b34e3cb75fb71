// stepscope-cli import F: a profile PyTorch wrote of the user's own code, read into the tables
// and summaries Stepscope makes of its own runs.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli_options.h"
#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/kernel_digest.h"
#include "core/config_error.h"
#include "imports/import_record.h"
#include "imports/memory_snapshot.h"
#include "imports/memory_snapshot_timeline.h"
#include "imports/snapshot_frames.h"
#include "imports/torch_trace.h"
#include "imports/torch_trace_profile.h"
#include "io/kernel_summary_export.h"
#include "io/memory_export.h"
#include "io/output_file.h"
#include "io/run_record_json.h"
#include "schema/value_format.h"
#include "schema/input_arguments.h"
#include "schema/input_usage.h"

namespace stepscope::cli {

namespace {

using schema::InputField;
using schema::InputKind;

const schema::InputSchema& import_inputs() {
  static const schema::InputSchema inputs = [] {
    std::vector<InputField> f;
    f.push_back({"file", "Profile", InputKind::path,
                 "a torch.profiler Chrome trace (prof.export_chrome_trace(...), .json or .json.gz)\n"
                 "or a CUDA memory snapshot (torch.cuda.memory._dump_snapshot(...), a pickle);\n"
                 "may also come first, without --file",
                 "", false, "input", "F"});
    f.back().required = true;
    f.push_back({"csv", "Tables", InputKind::path,
                 "writes F's stem + the tables bench writes: of a trace .kernels.csv, .categories.csv,\n"
                 ".gpu_steps.csv and .cpu_ranges.csv (--profile kernels); of a snapshot, per device\n"
                 "D, .cudaD.memory_timeline.csv, .memory_peaks.csv, .largest_allocations.csv and\n"
                 ".memory_categories.csv (--profile memory)",
                 "", false, "output", "F"});
    f.push_back({"json", "Run record", InputKind::path,
                 "writes the profile as a Stepscope run record (what bench --json writes): the app\n"
                 "opens it, stepscope-cli compare compares it with another import or a run of ours;\n"
                 "of a trace one entry (steps, kernels, operators), of a snapshot one per device\n"
                 "(the memory timeline)",
                 "", false, "output", "RECORD"});
    f.push_back({"short-names", "Short kernel names", InputKind::flag,
                 "kernels.csv with templates and arguments folded", "", false, "output", ""});
    f.push_back({"quiet", "Quiet", InputKind::flag, "no summary (stdout) and no progress (stderr)", "", false, "output", ""});
    return schema::InputSchema{f};
  }();
  return inputs;
}

std::string import_usage() {
  return schema::usage_text(
      import_inputs(),
      {"stepscope-cli import F [options]",
       "Reads a profile of your own PyTorch code as Stepscope reads its own runs. A torch.profiler\n"
       "trace gives the kernels and copies per record_function range (Nsight Systems' columns), the\n"
       "category roll-up, GPU busy and idle time per ProfilerStep#N and CPU time per range. A memory\n"
       "snapshot gives memory_viz's active-memory timeline and peak (blocks alive before recording\n"
       "began count from the start), the largest allocations at the peak with your own file:line\n"
       "first, reserved against allocated memory, and categories where the Python frames tell.\n"
       "With --json, the profile as a run record: `stepscope --open-file RECORD` shows it, `stepscope-cli\n"
       "compare` compares it (the app opens the profile itself too: stepscope --open-file F).\n",
       "Exit status: 0 read, 2 a file that cannot be read as a profile (the message says why).\n"});
}

// A pickle (protocol 2 and above start with PROTO, 0x80): torch.cuda.memory._dump_snapshot's.
bool is_memory_snapshot(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;  // the trace reader names the missing file
  const int first = std::fgetc(f);
  std::fclose(f);
  return first == 0x80;
}

// "runs.csv" -> "runs".
std::string stem_of(const std::string& path) {
  const std::string ext = ".csv";
  const bool has = path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
  return has ? path.substr(0, path.size() - ext.size()) : path;
}

void print_snapshot_digest(std::ostream& out, const imports::MemorySnapshot& snapshot,
                           const imports::SnapshotTimeline& t) {
  using schema::bytes_text;
  out << "memory of cuda:" << t.device << ": " << t.alloc_entries << " allocations and " << t.free_completed_entries
      << " frees recorded; " << bytes_text(static_cast<double>(t.before_recording_bytes)) << " in "
      << t.before_recording_allocations << " blocks alive before recording began\n";
  out << "  peak " << bytes_text(static_cast<double>(t.peak_bytes)) << " at entry " << t.peak_entry << "; at the end "
      << bytes_text(static_cast<double>(t.final_bytes)) << "; reserved " << bytes_text(static_cast<double>(t.segments.totals.reserved_bytes))
      << " in " << t.segments.segment_count << " segments, of which free "
      << bytes_text(static_cast<double>(t.segments.totals.free_bytes)) << '\n';
  int64_t known = 0;
  for (size_t c = 0; c < t.peak_bytes_by_category.size(); ++c) {
    if (static_cast<profiling::MemoryCategory>(c) != profiling::MemoryCategory::other) known += t.peak_bytes_by_category[c];
  }
  out << "  at the peak, by what the Python frames tell:";
  for (size_t c = 0; c < t.peak_bytes_by_category.size(); ++c) {
    const auto category = static_cast<profiling::MemoryCategory>(c);
    if (t.peak_bytes_by_category[c] <= 0) continue;
    out << ' ' << (category == profiling::MemoryCategory::other ? std::string("unknown") : profiling::to_string(category))
        << ' ' << bytes_text(static_cast<double>(t.peak_bytes_by_category[c])) << ';';
  }
  out << (known == 0 ? " (no frames tell)" : "") << '\n';
  out << "  largest alive at the peak:\n";
  for (size_t i = 0; i < t.largest_at_peak.size() && i < 5; ++i) {
    const auto& a = t.allocations[t.largest_at_peak[i]];
    const std::string where = imports::first_frame_text(snapshot, a.stack);
    out << "    " << bytes_text(static_cast<double>(a.bytes)) << "  "
        << (where.empty() ? std::string(a.alloc_entry < 0 ? "(alive before recording)" : "(no frames)") : where) << '\n';
  }
}

// The record --json writes: the import's, with this command as what made it; when the profile was
// taken where the file says, else now.
void write_record(const std::string& path, RunRecord record, const std::vector<std::string>& args) {
  RunEnvironment environment = command_environment("import", args);
  if (!record.environment.started_at.empty()) environment.started_at = record.environment.started_at;
  record.environment = environment;
  write_run_record_file(path, record);
}

int import_snapshot(const std::string& file, const std::string& csv, const std::string& json,
                    const std::vector<std::string>& args, bool quiet, std::ostream& out, std::ostream& err) {
  imports::MemorySnapshot snapshot;
  try {
    snapshot = imports::read_memory_snapshot(file);
  } catch (const imports::MemorySnapshotError& e) {
    err << "stepscope-cli import: error: " << e.what() << '\n';
    return kExitUsage;
  }
  const auto devices = imports::snapshot_devices(snapshot);
  if (devices.empty() && !quiet) out << "import: the snapshot holds no memory and no trace\n";
  for (int device : devices) {
    const auto timeline = imports::build_snapshot_timeline(snapshot, device);
    if (!csv.empty()) {
      profiling::TimelineOptions options;
      options.device = device;
      const auto drawn = profiling::build_memory_timeline(imports::to_allocation_log(snapshot, timeline), options);
      const std::string stem = stem_of(csv) + ".cuda" + std::to_string(device);
      replace_file(stem + ".memory_timeline.csv", [&](std::ostream& f) { write_memory_timeline_csv(f, drawn, 4000); });
      replace_file(stem + ".memory_peaks.csv", [&](std::ostream& f) { write_memory_peaks_csv(f, drawn); });
      replace_file(stem + ".largest_allocations.csv", [&](std::ostream& f) { write_largest_allocations_csv(f, drawn); });
      replace_file(stem + ".memory_categories.csv", [&](std::ostream& f) { write_memory_categories_csv(f, drawn); });
      if (!quiet) out << "import: wrote " << stem << ".{memory_timeline,memory_peaks,largest_allocations,memory_categories}.csv\n";
    }
    if (!quiet) print_snapshot_digest(out, snapshot, timeline);
  }
  if (!json.empty()) {
    write_record(json, imports::snapshot_record(snapshot, file), args);
    if (!quiet) out << "import: wrote the run record " << json << '\n';
  }
  return kExitOk;
}

}  // namespace

int run_import_command(const std::vector<std::string>& raw_args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> args = raw_args;
  if (!args.empty() && args.front().rfind("--", 0) != 0) args.insert(args.begin(), "--file");
  std::string file, csv, json;
  bool quiet = false, short_names = false;
  try {
    const auto parsed = schema::parse_arguments(import_inputs(), "import", args);
    if (parsed.help) {
      out << import_usage();
      return kExitOk;
    }
    file = parsed.values.text("file");
    csv = parsed.values.text("csv");
    json = parsed.values.text("json");
    quiet = parsed.values.flag("quiet");
    short_names = parsed.values.flag("short-names");
    std::vector<std::pair<std::string, std::string>> outputs = {{"--json", json}};
    if (!csv.empty() && is_memory_snapshot(file)) {
      outputs.push_back({"--csv", stem_of(csv) + ".cuda0.memory_timeline.csv"});
    } else if (!csv.empty()) {
      const std::string stem = stem_of(csv);
      outputs.insert(outputs.end(), {{"--csv (kernels)", stem + ".kernels.csv"},
                                     {"--csv (categories)", stem + ".categories.csv"},
                                     {"--csv (GPU steps)", stem + ".gpu_steps.csv"},
                                     {"--csv (CPU ranges)", stem + ".cpu_ranges.csv"}});
    }
    check_outputs(outputs, {{"--file", file}});
  } catch (const ConfigError& e) {
    err << "stepscope-cli import: error: " << e.what() << '\n';
    return kExitUsage;
  } catch (const CliError& e) {
    err << "stepscope-cli import: error: " << e.what() << '\n';
    return kExitUsage;
  }

  if (is_memory_snapshot(file)) return import_snapshot(file, csv, json, raw_args, quiet, out, err);
  imports::TraceReadOptions options;
  int decile = 0;  // a line per tenth of a large file read; small files print none
  options.progress = [&](double fraction) {
    const int reached = static_cast<int>(fraction * 10);
    if (!quiet && reached > decile && reached < 10) {
      decile = reached;
      err << "import: reading " << file << ": " << decile * 10 << " %\n";
    }
    return !interrupt_flag().is_cancelled();
  };
  imports::ImportedTraceProfile imported;
  imports::TorchTrace trace;
  try {
    trace = imports::read_torch_trace(file, options);
    imports::require_trace_events(trace, file);
    imported = imports::profile_torch_trace(trace);
  } catch (const imports::TraceImportError& e) {
    err << "stepscope-cli import: error: " << e.what() << '\n';
    return interrupt_flag().is_cancelled() ? kExitInterrupted : kExitUsage;
  }
  const auto& profile = imported.profile;
  if (!csv.empty()) {
    const std::string stem = stem_of(csv);
    replace_file(stem + ".kernels.csv", [&](std::ostream& f) { write_kernel_summary_csv(f, profile, short_names); });
    replace_file(stem + ".categories.csv", [&](std::ostream& f) { write_category_csv(f, profile); });
    replace_file(stem + ".gpu_steps.csv", [&](std::ostream& f) { write_step_gpu_usage_csv(f, profile); });
    replace_file(stem + ".cpu_ranges.csv", [&](std::ostream& f) { write_cpu_ranges_csv(f, profile); });
  }
  if (!json.empty()) write_record(json, imports::trace_record(trace, file), raw_args);
  if (!quiet) {
    for (const auto& note : imported.notes) out << "import: " << note << '\n';
    print_profile_digest(out, profile, file);
    if (!csv.empty()) out << "import: wrote " << stem_of(csv) << ".{kernels,categories,gpu_steps,cpu_ranges}.csv\n";
    if (!json.empty()) out << "import: wrote the run record " << json << '\n';
  }
  return kExitOk;
}

}  // namespace stepscope::cli
