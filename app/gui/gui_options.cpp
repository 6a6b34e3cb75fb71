#include "gui/gui_options.h"

#include "cli/cli_options.h"
#include "cli/experiment_command.h"
#include "core/config_error.h"
#include "experiments/bench/bench_inputs.h"
#include "runners/cpu_threads.h"
#include "schema/input_arguments.h"
#include "schema/input_usage.h"

namespace stepscope::gui {

namespace {

using schema::InputField;
using schema::InputKind;

// Inputs of the step benchmark that only name its CSV files: the application exports its own.
const char* const kCommandLineOnly[] = {"short-names", "memory-points"};

std::vector<InputField> application_inputs() {
  std::vector<InputField> f;
  f.push_back({"run", "Run", InputKind::flag, "start the run at once", "", false, "application", ""});
  f.push_back({"version", "Version", InputKind::flag,
               "print the versions of stepscope, LibTorch (CPU or CUDA build) and Qt, and exit", "", false,
               "application", ""});
  f.push_back({"export", "Export", InputKind::path,
               "when the run ends, write every table as CSV, every chart as PNG and the\n"
               "window showing each tab (window_<tab>.png) into DIR",
               "", false, "application", "DIR"});
  f.push_back({"screenshot", "Screenshot", InputKind::path, "when the run ends, save the main window as a PNG", "",
               false, "application", "FILE"});
  f.push_back({"quit", "Quit", InputKind::flag,
               "exit when the run ends or the opened run is shown and exported; status 0\n"
               "when every configuration ran",
               "", false, "application", ""});
  f.push_back({"history", "History", InputKind::path, "the run-history database (default: in the user's data directory)",
               "", false, "application", "FILE"});
  f.push_back({"open-run", "Open run", InputKind::text,
               "show a stored run (an id from the History dock, or 'latest') instead of running", "", false,
               "application", "ID"});
  f.back().check = [](const std::string& text) {
    if (text == "latest") return;
    if (text.find_first_not_of("0123456789") != std::string::npos) {
      throw ConfigError("takes a run id or 'latest', not '" + text + "'");
    }
    const InputField id{"open-run", "Run", InputKind::integer, "a run id"};
    schema::check_input_item(id, text);  // a number too large to be an id is refused
  };
  f.push_back({"open-file", "Open file", InputKind::path,
               "show a run file saved from the History dock or written by stepscope-cli --json,\n"
               "or import a profile PyTorch wrote (told by what the file holds, not its name): a\n"
               "torch.profiler trace (.json, .json.gz) shows in Kernels, a CUDA memory snapshot\n"
               "(.pickle) in Memory, each kept in the History; several (a,b,c) open one after the\n"
               "other, beside each other",
               "", true, "application", "FILE"});
  f.push_back(cpu_threads_input());
  f.back().group = "application";
  f.back().default_text.clear();  // not given: Run > CPU threads' setting
  f.back().help += "; this start only, Run > CPU threads keeps one";
  return f;
}

// The application's options, then the step benchmark's.
const schema::InputSchema& gui_inputs() {
  static const schema::InputSchema inputs = [] {
    std::vector<InputField> fields = application_inputs();
    for (InputField field : bench_inputs().fields) {
      for (const char* only : kCommandLineOnly) field.hidden = field.hidden || field.key == only;
      fields.push_back(std::move(field));
    }
    return schema::InputSchema{fields};
  }();
  return inputs;
}

bool is_application_input(const std::string& key) {
  for (const InputField& field : application_inputs()) {
    if (field.key == key) return true;
  }
  return false;
}

}  // namespace

namespace {

// `stepscope FILE...` (how a file manager opens a run file: Exec=stepscope %f) means
// --open-file FILE...: the words that are neither an option nor an option's value.
std::vector<std::string> with_files_as_options(const std::vector<std::string>& args) {
  std::vector<std::string> out, files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("-", 0) != 0 || arg == "-") {
      files.push_back(arg);
      continue;
    }
    out.push_back(arg);
    if (arg.rfind("--", 0) != 0 || arg.find('=') != std::string::npos) continue;
    const std::string key = arg.substr(2);
    const InputField* field = gui_inputs().find(key);
    const bool takes_value = field != nullptr && field->kind != InputKind::flag;
    if (takes_value && i + 1 < args.size()) out.push_back(args[++i]);
  }
  if (files.empty()) return out;
  std::string joined;
  for (const auto& file : files) {
    if (file.find(',') != std::string::npos) {
      // --open-file splits at commas; a name with one cannot be told apart from two files.
      throw cli::CliError("cannot open '" + file + "': a file name with a comma; rename or move it");
    }
    joined += (joined.empty() ? "" : ",") + file;
  }
  for (const auto& arg : out) {
    if (arg == "--open-file" || arg.rfind("--open-file=", 0) == 0) {
      throw cli::CliError("give the files to open either after --open-file or as plain arguments, not both");
    }
  }
  out.push_back("--open-file=" + joined);
  return out;
}

}  // namespace

GuiOptions parse_gui_options(const std::vector<std::string>& given) {
  const std::vector<std::string> args = with_files_as_options(given);
  // The command line's output options mean nothing here: refused by name, not as unknown.
  for (const auto& arg : args) {
    for (const char* cli_only : {"--csv", "--json", "--quiet", "--short-names", "--memory-points"}) {
      const std::string name = cli_only;
      if (arg == name || arg.rfind(name + "=", 0) == 0) {
        throw cli::CliError(name + " is an option of stepscope-cli bench; the application writes its tables with "
                                   "--export DIR");
      }
    }
  }
  schema::ParsedArguments parsed;
  try {
    parsed = schema::parse_arguments(gui_inputs(), "stepscope", args);
  } catch (const ConfigError& e) {
    throw cli::CliError(e.what());
  }
  GuiOptions o;
  o.help = parsed.help;
  if (o.help) return o;
  const schema::InputValues& v = parsed.values;
  o.version = v.flag("version");
  if (o.version) return o;
  o.run = v.flag("run");
  o.quit = v.flag("quit");
  o.export_dir = v.text("export");
  o.screenshot_path = v.text("screenshot");
  o.history_path = v.text("history");
  o.open_run = v.text("open-run");
  o.open_files = v.items("open-file");
  if (v.given("threads")) o.cpu_threads = static_cast<int>(v.integer("threads"));
  schema::InputValues bench(bench_inputs());
  bool configured = false;
  for (const auto& [key, text] : v.given_values()) {
    if (is_application_input(key)) continue;
    const InputField& field = bench_inputs().at(key);
    field.kind == InputKind::flag ? bench.set_flag(key, true) : bench.set(key, text);
    configured = true;
  }
  if (configured) {
    try {
      expand(bench_spec(bench));  // every configuration is checked before a window opens
    } catch (const ConfigError& error) {
      throw cli::CliError(cli::option_message(error, bench_inputs()));
    }
    o.bench = bench;
  }
  const bool opens = !o.open_run.empty() || !o.open_files.empty();
  if (o.quit && !o.run && !opens) {
    throw cli::CliError("--quit needs --run, --open-run or --open-file (there would be nothing to wait for)");
  }
  if (o.run && opens) throw cli::CliError("--run and --open-run/--open-file exclude each other");
  if (!o.open_run.empty() && o.open_run != "latest") o.open_run_id = std::stoll(o.open_run);
  return o;
}

std::string gui_usage() {
  return schema::usage_text(
      gui_inputs(),
      {"stepscope [options] [FILE...]",
       "Opens the desktop application, its run panel set from the step benchmark's options (those of\n"
       "stepscope-cli bench; comma lists make a sweep). FILEs are opened as with --open-file: run\n"
       "files, torch.profiler traces and CUDA memory snapshots.\n",
       "Without a display, run with QT_QPA_PLATFORM=offscreen, or use stepscope-cli bench.\n"});
}

}  // namespace stepscope::gui
