// The attention experiment's plain types: which implementation, one sweep configuration and
// its result. Shared by the engine, the CLI and the views (no LibTorch here).
#pragma once

#include <cstdint>
#include <string>

#include "attention/attention_impl.h"
#include "core/device.h"
#include "core/phase_stats.h"
#include "core/precision.h"
#include "core/run_status.h"

namespace stepscope {

struct AttentionConfig {
  AttentionImpl impl = AttentionImpl::flash;
  int64_t batch = 8;
  int64_t heads = 1;  // 1: the seeds' (batch, seq, d) inputs, "no head dimension"
  int64_t head_dim = 64;
  int64_t seq = 1024;
  Precision precision = Precision::fp32;
  bool causal = false;
  int warmup_steps = 5;
  int measured_steps = 100;  // forward passes, and as many backward passes
  Device device;  // the CPU by default
  uint64_t seed = 0;
};

// Throws ConfigError (with the field's key) for sizes that cannot run anywhere.
void validate(const AttentionConfig& config);
// "flash b 8 h 1 d 64 seq 1024 bf16 causal"
std::string describe(const AttentionConfig& config);

struct AttentionResult {
  AttentionConfig config;
  RunStatus status = RunStatus::ok;
  std::string message;
  std::string device_name;
  std::string timer;
  PhaseStats forward, backward, forward_backward;
  double forward_tflops = 0, backward_tflops = 0;
  int64_t memory_before_backward_bytes = -1;  // in use after a forward pass, before its backward
  int64_t peak_memory_bytes = -1;
  // The largest |error| of O, dQ, dK and dV against naive attention in fp32 on the same inputs
  // (the inputs rounded to the configuration's precision); < 0 when not checked.
  double max_abs_error = -1;
  // The sequence length the check ran at: the configuration's, or shorter where naive fp32
  // attention at full length would not fit (then the first `checked_seq` positions).
  int64_t checked_seq = 0;
};

}  // namespace stepscope
