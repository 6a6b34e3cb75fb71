#include "experiments/precision/precision_lab.h"

#include <torch/torch.h>

#include "core/config_error.h"
#include "compat/torch_compat.h"
#include "experiments/harness.h"
#include "experiments/memory_precheck.h"
#include "runners/memory_estimate.h"
#include "experiments/precision/accumulation.h"
#include "experiments/precision/autocast_dtypes.h"
#include "experiments/precision/precision_schema.h"
#include "runners/device_backend.h"

namespace stepscope::precision {

namespace {

// A case whose one step computes all its rows.
template <class Row>
class TableCase : public ExperimentCase {
 public:
  TableCase(std::string label, Device device, const schema::Schema<Row>& schema)
      : label_(std::move(label)), device_(device), schema_(schema) {}
  std::string label() const override { return label_; }
  Device device() const override { return device_; }
  void prepare(DeviceBackend&, profiling::AllocationRecorder*) override {}
  void finish(CaseEnd end) override {
    outcome_.status = end.status;
    outcome_.message = end.message;
    outcome_.tables = {schema_.table(rows_)};
  }
  ExperimentOutcome take() { return std::move(outcome_); }

 protected:
  std::vector<Row> rows_;

 private:
  std::string label_;
  Device device_;
  const schema::Schema<Row>& schema_;
  ExperimentOutcome outcome_;
};

class AccumulationExperiment final : public TableCase<AccumulationCase> {
 public:
  AccumulationExperiment() : TableCase("accumulation of 0.01, 1000 times", Device{}, accumulation_schema()) {}
  void run_step(const StepContext&) override { rows_ = accumulation_cases(); }
};

class AutocastExperiment final : public TableCase<TensorDtype> {
 public:
  explicit AutocastExperiment(const AutocastRequest& request)
      : TableCase(describe(request), request.device, autocast_schema()), request_(request) {}
  void check(DeviceBackend& backend) override {
    spec_.model = request_.model == "toy" ? AutocastModel::toy : AutocastModel::transformer;
    if (spec_.model == AutocastModel::transformer) {
      spec_.transformer = with_context(model_preset(request_.model), request_.context);
    }
    spec_.dtype = request_.precision == Precision::fp16 ? c10::kHalf : c10::kBFloat16;
    spec_.device = backend.device();
    spec_.batch = request_.batch;
    spec_.context = request_.context;
    spec_.seed = request_.seed;
    if (!compat::autocast_supported(spec_.device.type(), spec_.dtype)) {
      throw ConfigError(to_string(request_.precision) + " autocast is not available on " + to_string(request_.device) +
                            " with this LibTorch (" + compat::libtorch_version() + ")",
                        "precision");
    }
  }
  // A Transformer far beyond the machine is an out-of-memory result before it is built.
  void prepare(DeviceBackend& backend, profiling::AllocationRecorder*) override {
    if (spec_.model != AutocastModel::transformer) return;
    BenchConfig step;
    step.model = spec_.transformer;
    step.batch = request_.batch;
    step.context = request_.context;
    step.precision = request_.precision;
    step.mode = StepMode::forward_backward;
    refuse_if_clearly_too_large(estimate_memory(step).peak_bytes, backend.available_memory_bytes(), request_.device,
                                "the model's forward and backward on " + std::to_string(request_.batch) + " x " +
                                    std::to_string(request_.context) + " tokens");
  }
  void run_step(const StepContext&) override { rows_ = autocast_dtypes(spec_); }

 private:
  AutocastRequest request_;
  AutocastSpec spec_;
};

template <class Case>
ExperimentOutcome run(Case& c, ProgressSink* progress, const CancelFlag* cancel) {
  run_case(c, {}, progress, cancel);
  return c.take();
}

}  // namespace

void validate(const AutocastRequest& r) {
  if (r.model != "toy") {
    try {
      model_preset(r.model);
    } catch (const ConfigError& e) {
      throw ConfigError(std::string(e.what()) + "; or 'toy' for the handout's ToyModel", "model");
    }
  }
  if (r.precision == Precision::fp32) {
    throw ConfigError("autocast lowers to bf16 or fp16; fp32 has nothing to show", "precision");
  }
  check_device(r.device);  // exists here: the run moves tensors there
  if (r.batch <= 0) throw ConfigError("batch size must be positive (got " + std::to_string(r.batch) + ")", "batch");
  if (r.batch > kMaxDimension) {
    throw ConfigError("batch size " + std::to_string(r.batch) + " is too large (at most " +
                          std::to_string(kMaxDimension) + ")",
                      "batch");
  }
  if (r.context <= 0) {
    throw ConfigError("context length must be positive (got " + std::to_string(r.context) + ")", "context");
  }
  if (r.context > kMaxDimension) {
    throw ConfigError("context length " + std::to_string(r.context) + " is too large (at most " +
                          std::to_string(kMaxDimension) + ")",
                      "context");
  }
}

std::string describe(const AutocastRequest& r) {
  return "autocast " + to_string(r.precision) + ", " + r.model + " on " + to_string(r.device);
}

ExperimentOutcome run_accumulation(ProgressSink* progress, const CancelFlag* cancel) {
  AccumulationExperiment c;
  return run(c, progress, cancel);
}

ExperimentOutcome run_autocast(const AutocastRequest& request, ProgressSink* progress, const CancelFlag* cancel) {
  validate(request);
  AutocastExperiment c(request);
  return run(c, progress, cancel);
}

}  // namespace stepscope::precision
