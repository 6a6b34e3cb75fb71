// The desktop application's command line, declared as every command's is (schema/input_field.h):
// the step benchmark's inputs, which set the run panel, and the application's own options that
// scripts and the end-to-end tests use to drive the window.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schema/input_values.h"

namespace stepscope::gui {

struct GuiOptions {
  std::optional<schema::InputValues> bench;  // the run panel's inputs, when any was given
  bool run = false;             // --run: start at once
  std::string export_dir;       // --export DIR: every table as CSV and chart as PNG when the run ends
  std::string screenshot_path;  // --screenshot FILE: the main window, after the run
  bool quit = false;            // --quit: exit when done (status 0 when every configuration ran)
  std::string history_path;     // --history FILE: the run-history database (default: user data dir)
  std::string open_run;         // --open-run ID|latest: show a stored run instead of running
  int64_t open_run_id = 0;      // its id; 0 for 'latest'
  std::vector<std::string> open_files;  // --open-file FILE[,FILE...]: run files to show, in order
  std::optional<int> cpu_threads;  // --threads N: LibTorch's CPU threads for this start (else the setting's)
  bool help = false;
  bool version = false;  // --version: print the build's versions and exit
};

// Throws cli::CliError naming the offending option.
GuiOptions parse_gui_options(const std::vector<std::string>& args);
std::string gui_usage();

}  // namespace stepscope::gui
