#include "gui/gui_options.h"

#include "cli/cli_options.h"
#include "core/config_error.h"
#include "schema/input_values.h"

namespace stepscope::gui {

namespace {

// "--flag value" or "--flag=value"; advances i past the value.
bool take_value(const std::vector<std::string>& args, size_t& i, const std::string& flag, std::string& value) {
  const std::string& arg = args[i];
  if (arg == flag) {
    if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0) throw cli::CliError(flag + " needs a value");
    value = args[++i];
    if (value.empty()) throw cli::CliError(flag + " needs a value, not an empty one");
    return true;
  }
  if (arg.rfind(flag + "=", 0) == 0) {
    value = arg.substr(flag.size() + 1);
    if (value.empty()) throw cli::CliError(flag + " needs a value");
    return true;
  }
  return false;
}

}  // namespace

GuiOptions parse_gui_options(const std::vector<std::string>& args) {
  GuiOptions o;
  std::vector<std::string> run_flags;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--run") {
      o.run = true;
    } else if (arg == "--quit") {
      o.quit = true;
    } else if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else if (take_value(args, i, "--export", o.export_dir) || take_value(args, i, "--screenshot", o.screenshot_path) ||
               take_value(args, i, "--history", o.history_path) || take_value(args, i, "--open-run", o.open_run) ||
               take_value(args, i, "--open-file", o.open_file)) {
    } else {
      run_flags.push_back(arg);
    }
  }
  // The command line's output flags mean nothing here: refused, not silently ignored.
  for (const auto& flag : run_flags) {
    for (const char* cli_only : {"--csv", "--json", "--quiet", "--short-names", "--memory-points"}) {
      const std::string name = cli_only;
      if (flag == name || flag.rfind(name + "=", 0) == 0) {
        throw cli::CliError(name + " is an option of stepscope-cli bench; the application writes its tables with "
                                   "--export DIR");
      }
    }
  }
  o.configured = !run_flags.empty();
  o.bench = cli::parse_bench_options(run_flags);
  const bool opens = !o.open_run.empty() || !o.open_file.empty();
  if (o.quit && !o.run && !opens) {
    throw cli::CliError("--quit needs --run, --open-run or --open-file (there would be nothing to wait for)");
  }
  if (o.run && opens) throw cli::CliError("--run and --open-run/--open-file exclude each other");
  if (!o.open_run.empty() && o.open_run != "latest") {
    if (o.open_run.find_first_not_of("0123456789") != std::string::npos) {
      throw cli::CliError("--open-run takes a run id or 'latest', not '" + o.open_run + "'");
    }
    const schema::InputField id{"open-run", "Run", schema::InputKind::integer, "a run id"};
    try {
      schema::check_input_item(id, o.open_run);  // a number too large to be an id is refused
    } catch (const ConfigError& e) {
      throw cli::CliError(std::string("--open-run: ") + e.what());
    }
    o.open_run_id = std::stoll(o.open_run);
  }
  return o;
}

std::string gui_usage() {
  return "usage: stepscope [run flags of stepscope-cli bench] [--run] [--export DIR] [--screenshot FILE]\n"
         "                 [--quit] [--history FILE]\n"
         "\n"
         "Opens the desktop application with the run panel set from the run flags (--model, --context,\n"
         "--batch, --precision, --mode, --warmup, --steps, --device, --profile kernels,memory, ...;\n"
         "comma lists make a sweep).\n"
         "  --run              start the run at once\n"
         "  --export DIR       when the run ends, write every table as CSV, every chart as PNG and the\n"
         "                     window showing each tab (window_<tab>.png) into DIR\n"
         "  --screenshot FILE  when the run ends, save the main window as a PNG\n"
         "  --quit             exit when the run ends or the opened run is shown and exported; status 0\n"
         "                     when every configuration ran\n"
         "  --history FILE     the run-history database (default: in the user's data directory)\n"
         "  --open-run ID      show a stored run (an id from the History dock, or 'latest') instead of running\n"
         "  --open-file FILE   show a run file saved from the History dock\n"
         "\n"
         "Without a display, run with QT_QPA_PLATFORM=offscreen, or use stepscope-cli bench.\n";
}

}  // namespace stepscope::gui
