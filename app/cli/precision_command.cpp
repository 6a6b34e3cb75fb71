// stepscope-cli precision accumulate|autocast: the precision lab's two experiments, run through
// their descriptors (experiment_command.h).
#include <iostream>

#include "cli/commands.h"
#include "cli/experiment_command.h"
#include "registry/experiment_registry.h"

namespace stepscope::cli {

namespace {

std::string precision_usage() {
  std::string usage;
  for (const char* id : {"precision.accumulate", "precision.autocast"}) {
    usage += (usage.empty() ? "" : "\n") + experiment_usage(*find_experiment(id));
  }
  return usage;
}

}  // namespace

int run_precision_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string what = args.empty() ? "" : args.front();
  if (what == "--help" || what == "-h" || what == "help") {
    out << precision_usage();
    return kExitOk;
  }
  if (what != "accumulate" && what != "autocast") {
    err << "stepscope-cli precision: error: "
        << (what.empty() ? "precision needs an experiment: accumulate or autocast"
                         : "unknown precision experiment '" + what + "' (use accumulate or autocast)")
        << '\n';
    return kExitUsage;
  }
  return run_experiment_command(*find_experiment("precision." + what), {args.begin() + 1, args.end()}, out, err);
}

}  // namespace stepscope::cli
