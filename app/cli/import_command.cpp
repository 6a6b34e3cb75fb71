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
#include "imports/torch_trace.h"
#include "imports/torch_trace_profile.h"
#include "io/kernel_summary_export.h"
#include "io/output_file.h"
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
                 "a torch.profiler Chrome trace (prof.export_chrome_trace(...), .json or .json.gz);\n"
                 "may also come first, without --file",
                 "", false, "input", "F"});
    f.back().required = true;
    f.push_back({"csv", "Tables", InputKind::path,
                 "writes F's stem + .kernels.csv, .categories.csv, .gpu_steps.csv and .cpu_ranges.csv:\n"
                 "the tables bench --profile kernels writes",
                 "", false, "output", "F"});
    f.push_back({"short-names", "Short kernel names", InputKind::flag,
                 "kernels.csv with templates and arguments folded", "", false, "output", ""});
    f.push_back({"quiet", "Quiet", InputKind::flag, "no summary or progress on stderr", "", false, "output", ""});
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
       "category roll-up, GPU busy and idle time per ProfilerStep#N and CPU time per range.\n",
       "Exit status: 0 read, 2 a file that cannot be read as a profile (the message says why).\n"});
}

// "runs.csv" -> "runs".
std::string stem_of(const std::string& path) {
  const std::string ext = ".csv";
  const bool has = path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
  return has ? path.substr(0, path.size() - ext.size()) : path;
}

}  // namespace

int run_import_command(const std::vector<std::string>& raw_args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> args = raw_args;
  if (!args.empty() && args.front().rfind("--", 0) != 0) args.insert(args.begin(), "--file");
  std::string file, csv;
  bool quiet = false, short_names = false;
  try {
    const auto parsed = schema::parse_arguments(import_inputs(), "import", args);
    if (parsed.help) {
      out << import_usage();
      return kExitOk;
    }
    file = parsed.values.text("file");
    csv = parsed.values.text("csv");
    quiet = parsed.values.flag("quiet");
    short_names = parsed.values.flag("short-names");
    if (!csv.empty()) {
      const std::string stem = stem_of(csv);
      check_outputs({{"--csv (kernels)", stem + ".kernels.csv"},
                     {"--csv (categories)", stem + ".categories.csv"},
                     {"--csv (GPU steps)", stem + ".gpu_steps.csv"},
                     {"--csv (CPU ranges)", stem + ".cpu_ranges.csv"}},
                    {{"--file", file}});
    }
  } catch (const ConfigError& e) {
    err << "stepscope-cli import: error: " << e.what() << '\n';
    return kExitUsage;
  } catch (const CliError& e) {
    err << "stepscope-cli import: error: " << e.what() << '\n';
    return kExitUsage;
  }

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
  try {
    imported = imports::profile_torch_trace(imports::read_torch_trace(file, options));
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
  if (!quiet) {
    for (const auto& note : imported.notes) out << "import: " << note << '\n';
    print_profile_digest(out, profile, file);
    if (!csv.empty()) out << "import: wrote " << stem_of(csv) << ".{kernels,categories,gpu_steps,cpu_ranges}.csv\n";
  }
  return kExitOk;
}

}  // namespace stepscope::cli
