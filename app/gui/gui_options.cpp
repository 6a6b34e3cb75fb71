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

GuiOptions parse_gui_options(const std::vector<std::string>& args) {
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
      {"stepscope [options]",
       "Opens the desktop application, its run panel set from the step benchmark's options (those of\n"
       "stepscope-cli bench; comma lists make a sweep).\n",
       "Without a display, run with QT_QPA_PLATFORM=offscreen, or use stepscope-cli bench.\n"});
}

}  // namespace stepscope::gui
