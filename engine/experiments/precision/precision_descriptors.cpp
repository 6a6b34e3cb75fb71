#include "experiments/precision/precision_descriptors.h"

#include "experiments/precision/precision_inputs.h"
#include "experiments/precision/precision_schema.h"

namespace stepscope::precision {

namespace {

const char* const kExitStatuses =
    "Exit status: 0 ok, 1 the experiment failed or ran out of memory, 2 bad options, 130 interrupted.\n";

}  // namespace

ExperimentDescriptor accumulate_descriptor() {
  ExperimentDescriptor d;
  d.id = "precision.accumulate";
  d.command = {"precision", "accumulate"};
  d.name = "Accumulation";
  d.summary = "add 0.01 a thousand times in float32, float16 and bfloat16";
  d.inputs = &accumulate_inputs();
  d.usage.synopsis = "stepscope-cli precision accumulate [--csv F] [--json F] [--quiet]";
  d.usage.description =
      "Adds 0.01 a thousand times with float32, float16 and bfloat16 accumulators and addends, naive,\n"
      "Kahan-compensated and pairwise; the results are those PyTorch prints.\n";
  d.usage.epilogue = kExitStatuses;
  d.tables = {accumulation_schema().table({})};
  d.headline = {"abs_error"};
  d.run = [](const schema::InputValues&, ProgressSink* progress, const CancelFlag* cancel, const TablePublisher&) {
    return run_accumulation(progress, cancel);
  };
  d.reading = [](const std::vector<schema::Table>& tables) {
    return tables.empty() ? std::string() : accumulation_reading(tables.front());
  };
  d.describe = [](const schema::InputValues&) { return std::string("precision: accumulation"); };
  return d;
}

ExperimentDescriptor autocast_descriptor() {
  ExperimentDescriptor d;
  d.id = "precision.autocast";
  d.command = {"precision", "autocast"};
  d.name = "Autocast dtypes";
  d.summary = "the dtype autocast gives every parameter, output, loss and gradient";
  d.inputs = &autocast_inputs();
  d.usage.synopsis = "stepscope-cli precision autocast [options]";
  d.usage.description =
      "One forward pass and loss under autocast, backward after it: the dtype of every parameter,\n"
      "module output, the logits, the loss and every gradient.\n";
  d.usage.epilogue = kExitStatuses;
  d.tables = {autocast_schema().table({})};
  d.check = [](const schema::InputValues& values) { validate(autocast_request(values)); };
  d.run = [](const schema::InputValues& values, ProgressSink* progress, const CancelFlag* cancel,
             const TablePublisher&) { return run_autocast(autocast_request(values), progress, cancel); };
  d.reading = [](const std::vector<schema::Table>& tables) {
    return tables.empty() ? std::string() : autocast_reading(tables.front());
  };
  d.describe = [](const schema::InputValues& values) { return "precision: " + describe(autocast_request(values)); };
  return d;
}

}  // namespace stepscope::precision
