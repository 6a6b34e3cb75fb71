#include "runners/bench_types.h"

#include <cctype>

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
  return device.size() > 5 ? std::stoi(device.substr(5)) : 0;
}

std::string describe(const BenchConfig& c) {
  return c.model.name + " ctx " + std::to_string(c.context) + " b " + std::to_string(c.batch) + " " +
         to_string(c.precision) + " " + to_string(c.mode);
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
  throw ConfigError("unknown precision '" + text + "' (use fp32, bf16 or fp16)");
}

StepMode parse_step_mode(const std::string& text) {
  if (text == "forward") return StepMode::forward;
  if (text == "forward-backward") return StepMode::forward_backward;
  if (text == "train") return StepMode::train;
  throw ConfigError("unknown mode '" + text + "' (use forward, forward-backward or train)");
}

namespace {
bool is_valid_device(const std::string& device) {
  if (device == "cpu" || device == "cuda") return true;
  const std::string prefix = "cuda:";
  if (device.rfind(prefix, 0) != 0 || device.size() == prefix.size()) return false;
  for (size_t i = prefix.size(); i < device.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(device[i]))) return false;
  }
  return device.size() - prefix.size() <= 3;
}
}  // namespace

void validate(const BenchConfig& c) {
  validate(c.model);
  if (c.batch <= 0) throw ConfigError("batch size must be positive (got " + std::to_string(c.batch) + ")");
  if (c.context <= 0) throw ConfigError("context length must be positive (got " + std::to_string(c.context) + ")");
  if (c.context > c.model.context_length) {
    throw ConfigError("context length " + std::to_string(c.context) + " is longer than the model's context of " +
                      std::to_string(c.model.context_length));
  }
  if (c.warmup_steps < 0) throw ConfigError("warm-up steps cannot be negative");
  if (c.measured_steps <= 0) throw ConfigError("at least one measured step is needed");
  if (!is_valid_device(c.device)) {
    throw ConfigError("unknown device '" + c.device + "' (use cpu, cuda or cuda:N)");
  }
  if (c.peak_tflops < 0) throw ConfigError("peak TFLOP/s cannot be negative");
  if (c.memory_event_limit <= 0) throw ConfigError("the memory event limit must be positive");
}

bool runs_backward(StepMode mode) { return mode != StepMode::forward; }
bool runs_optimizer(StepMode mode) { return mode == StepMode::train; }

}  // namespace stepscope
