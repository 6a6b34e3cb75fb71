// An experiment, declared once: its id and name, its inputs (schema/input_field.h), the tables
// a run gives, and how to check and run it. From a descriptor, generically: the CLI command
// (usage, parsing, outputs, console table, exit status), the app's tab (form, Run/Cancel,
// progress, table), the argv of worker processes and the inputs a run record stores. In the
// spirit of nccl-tests' common code: an experiment says what is its own, nothing else.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/progress.h"
#include "experiments/experiment_outcome.h"
#include "schema/input_usage.h"
#include "schema/input_values.h"

namespace stepscope {

// Hands the tables as measured so far on (called from the thread that runs the experiment).
using TablePublisher = std::function<void(const std::vector<schema::Table>&)>;

struct ExperimentDescriptor {
  std::string id;                    // "attention", "precision.autocast": run records, the registry
  std::vector<std::string> command;  // stepscope-cli's words for it: {"precision", "autocast"}
  // Its words in older versions ({"allreduce"}): they still run it, and records made with them
  // reopen as its runs.
  std::vector<std::string> former_command = {};
  std::string name;                  // what a tab or a history entry calls it: "Attention sweep"
  std::string summary;               // one line in stepscope-cli's list of commands
  const schema::InputSchema* inputs = nullptr;  // static: values point to it
  schema::UsageText usage;            // the synopsis, a paragraph, the epilogue (exit statuses)
  std::vector<schema::Table> tables;  // a run's tables, empty (schema id, columns), the main one first
  // The main table's columns that sum a run up in the history's list (keys): its headline figures.
  std::vector<std::string> headline = {};
  // Checks the inputs together and what this build and machine can run, before anything
  // runs; throws ConfigError naming the field at fault. Null: the fields' own checks suffice.
  std::function<void(const schema::InputValues&)> check = {};
  // A job of ranks (collectives, DDP): stepscope-cli starts the workers and gathers their rows;
  // `run` is null.
  bool runs_as_ranks = false;
  // Runs it; the outcome's tables are what was measured, also when cancelled or failed. May
  // throw ConfigError for what check() could not see.
  std::function<ExperimentOutcome(const schema::InputValues&, ProgressSink*, const CancelFlag*,
                                  const TablePublisher&)>
      run = {};
  // What the measurement says, in a paragraph (optional); empty when it says nothing.
  std::function<std::string(const std::vector<schema::Table>&)> reading = {};
  // How the history names a run: "attention: 24 configurations on cpu" (optional).
  std::function<std::string(const schema::InputValues&)> describe = {};

  // "precision autocast".
  std::string command_text() const;
};

}  // namespace stepscope
