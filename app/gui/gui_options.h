// The desktop application's command line: the run flags of `stepscope-cli bench`, plus what
// scripts and the end-to-end test need to drive the window.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_options.h"

namespace stepscope::gui {

struct GuiOptions {
  cli::BenchOptions bench;      // the run configuration(s), as `stepscope-cli bench` reads them
  bool configured = false;      // any run flag was given
  bool run = false;             // --run: start at once
  std::string export_dir;       // --export DIR: every table as CSV and chart as PNG when the run ends
  std::string screenshot_path;  // --screenshot FILE: the main window, after the run
  bool quit = false;            // --quit: exit when done (status 0 when every configuration ran)
  std::string history_path;     // --history FILE: the run-history database (default: user data dir)
  std::string open_run;         // --open-run ID|latest: show a stored run instead of running
  int64_t open_run_id = 0;      // its id; 0 for 'latest'
  std::string open_file;        // --open-file FILE: show a run file (as saved from the history)
  bool help = false;
};

// Throws cli::CliError naming the offending flag.
GuiOptions parse_gui_options(const std::vector<std::string>& args);
std::string gui_usage();

}  // namespace stepscope::gui
