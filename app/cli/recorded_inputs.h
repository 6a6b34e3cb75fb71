// The experiment and inputs a run record was made with, so that a run reopens with exactly
// them and runs again: the record's own inputs (version 3 on), else, for records written
// before, its command line read through the experiment's descriptor.
#pragma once

#include <optional>
#include <string>

#include "experiments/experiment_descriptor.h"
#include "io/run_record_json.h"

namespace stepscope::cli {

struct RecordedInputs {
  const ExperimentDescriptor* experiment = nullptr;
  schema::InputValues values;
};

// Nothing when the record names no experiment this build has (a GUI run of an older version,
// a record of another program), or its inputs no longer parse.
std::optional<RecordedInputs> recorded_inputs(const RunRecord& record);

// The descriptor whose command `command_line` ("stepscope-cli precision autocast --seed 3")
// runs, and the words after the command; nothing when none does.
const ExperimentDescriptor* experiment_of_command_line(const std::string& command_line,
                                                       std::vector<std::string>* arguments = nullptr);

}  // namespace stepscope::cli
