#include "runners/bench_types.h"


namespace stepscope {

std::string to_string(Precision precision) {
  switch (precision) {
    case Precision::fp32: return "fp32";
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
  }
  return "?";
}

std::string to_string(StepMode mode) {
  switch (mode) {
    case StepMode::forward: return "forward";
    case StepMode::forward_backward: return "forward-backward";
    case StepMode::train: return "train";
  }
  return "?";
}

int device_ordinal(const std::string& device) {
  if (device == "cpu") return -1;
  if (device == "cuda") return 0;
  const std::string prefix = "cuda:";
  const std::string digits = device.rfind(prefix, 0) == 0 ? device.substr(prefix.size()) : "";
  // At most three digits: no machine has a thousand GPUs, and the number cannot overflow.
  if (digits.empty() || digits.size() > 3 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    throw ConfigError("unknown device '" + device + "' (use cpu, cuda or cuda:N)", "device");
  }
  return std::stoi(digits);
}

std::string describe(const BenchConfig& c) {
  return c.model.name + " ctx " + std::to_string(c.context) + " b " + std::to_string(c.batch) + " " +
         to_string(c.precision) + " " + to_string(c.mode) +
         (c.model.attention == AttentionImpl::naive ? "" : " " + to_string(c.model.attention));
}

std::string to_string(RunStatus status) {
  switch (status) {
    case RunStatus::ok: return "ok";
    case RunStatus::out_of_memory: return "OOM";
    case RunStatus::failed: return "failed";
    case RunStatus::cancelled: return "cancelled";
  }
  return "?";
}

Precision parse_precision(const std::string& text) {
  if (text == "fp32") return Precision::fp32;
  if (text == "bf16") return Precision::bf16;
  if (text == "fp16") return Precision::fp16;
  throw ConfigError("unknown precision '" + text + "' (use fp32, bf16 or fp16)", "precision");
}

StepMode parse_step_mode(const std::string& text) {
  if (text == "forward") return StepMode::forward;
  if (text == "forward-backward") return StepMode::forward_backward;
  if (text == "train") return StepMode::train;
  throw ConfigError("unknown mode '" + text + "' (use forward, forward-backward or train)", "mode");
}

RunStatus parse_run_status(const std::string& text) {
  for (RunStatus status : {RunStatus::ok, RunStatus::out_of_memory, RunStatus::failed, RunStatus::cancelled}) {
    if (to_string(status) == text) return status;
  }
  throw ConfigError("unknown status '" + text + "' (use ok, OOM, failed or cancelled)");
}


void validate(const BenchConfig& c) {
  validate(c.model);
  if (c.batch <= 0) throw ConfigError("batch size must be positive (got " + std::to_string(c.batch) + ")", "batch");
  if (c.batch > kMaxDimension) {
    throw ConfigError("batch size " + std::to_string(c.batch) + " is too large (at most " +
                          std::to_string(kMaxDimension) + ")",
                      "batch");
  }
  if (c.context <= 0) throw ConfigError("context length must be positive (got " + std::to_string(c.context) + ")", "context");
  if (c.context > c.model.context_length) {
    throw ConfigError("context length " + std::to_string(c.context) + " is longer than the model's context of " +
                      std::to_string(c.model.context_length),
                      "context");
  }
  if (c.warmup_steps < 0) throw ConfigError("warm-up steps cannot be negative", "warmup");
  if (c.measured_steps <= 0) throw ConfigError("at least one measured step is needed", "steps");
  device_ordinal(c.device);  // throws for a malformed device
  if (c.peak_tflops < 0) throw ConfigError("peak TFLOP/s cannot be negative", "peak_tflops");
  if (c.memory_event_limit <= 0) throw ConfigError("the memory event limit must be positive", "memory_event_limit");
}

bool runs_backward(StepMode mode) { return mode != StepMode::forward; }
bool runs_optimizer(StepMode mode) { return mode == StepMode::train; }

}  // namespace stepscope
