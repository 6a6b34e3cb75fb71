// stepscope-cli plan: the memory and batch accounting users do before a run, every
// number with its formula: per device master weights, accumulated gradients, optimizer state and
// activations for a model, precisions and a layout; the FSDP size that fits a device; the TPU
// Scaling Book's compute-bound batch; with a measured all-reduce run, the DDP bucket optimum.
#include <iostream>

#include "core/config_error.h"
#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/console_table.h"
#include "cli/experiment_command.h"
#include "io/table_csv.h"
#include "planner/measured_all_reduce.h"
#include "planner/plan.h"
#include "planner/plan_inputs.h"
#include "planner/plan_json.h"
#include "planner/plan_schema.h"
#include "planner/plan_validate.h"
#include "registry/experiment_registry.h"

namespace stepscope::cli {

namespace {

struct PlanOptions {
  planner::PlanRequest request;
  std::string allreduce;  // a run record read once the outputs are checked
  std::string csv, json;
  bool quiet = false;
};

// The option a planner field comes from: "m_x" is --m-x; the all-reduce fit's are --allreduce.
std::string option_of(const std::string& field) {
  if (field == "all_reduce" || field == "time_us" || field == "size_bytes") return "--allreduce";
  std::string option = "--" + field;
  for (char& c : option) c = c == '_' ? '-' : c;
  return option;
}

PlanOptions parse_options(const std::vector<std::string>& args) {
  const ExperimentArguments parsed = parse_experiment_arguments(*find_experiment("plan"), args, false);
  PlanOptions p;
  p.request = planner::plan_request(parsed.inputs);
  p.allreduce = parsed.inputs.text("allreduce");
  p.csv = parsed.outputs.csv;
  p.json = parsed.outputs.json;
  p.quiet = parsed.outputs.quiet;
  return p;
}

}  // namespace

int run_plan_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      out << experiment_usage(*find_experiment("plan"));
      return kExitOk;
    }
  }
  try {
    PlanOptions o = parse_options(args);
    check_outputs({{"--csv", o.csv.empty() ? "-" : o.csv}, {"--json", o.json}}, {{"--allreduce", o.allreduce}});
    if (!o.allreduce.empty()) o.request.all_reduce = planner::measured_all_reduce(o.allreduce);
    planner::validate(o.request);
    const planner::Plan plan = planner::make_plan(o.request);
    const schema::Table table = planner::plan_table(plan);
    if (o.csv.empty()) {
      write_table_csv(out, table);
    } else {
      replace_file(o.csv, [&](std::ostream& f) { write_table_csv(f, table); });
    }
    if (!o.json.empty()) replace_file(o.json, [&](std::ostream& f) { planner::write_plan_json(f, plan); });
    if (!o.quiet) print_table(err, table);
    return kExitOk;
  } catch (const CliError& e) {
    err << "stepscope-cli plan: error: " << e.what() << '\n';
  } catch (const ConfigError& e) {
    err << "stepscope-cli plan: error: " << (e.field().empty() ? "" : option_of(e.field()) + ": ") << e.what() << '\n';
  } catch (const std::exception& e) {
    err << "stepscope-cli plan: error: " << e.what() << '\n';
  }
  return kExitUsage;
}

}  // namespace stepscope::cli
