#include "planner/plan_validate.h"

#include <cmath>

#include "core/config_error.h"
#include "planner/plan_text.h"

namespace stepscope::planner {

namespace {

// Far beyond any machine, and small enough that products of sizes stay exact in doubles.
constexpr int64_t kMaxDevices = int64_t{1} << 20;

void require_count(int64_t value, int64_t high, const char* what, const char* key) {
  if (value < 1 || value > high) {
    throw ConfigError(std::string(what) + " must be between 1 and " + std::to_string(high) + " (got " +
                          std::to_string(value) + ")",
                      key);
  }
}

void require_positive(double value, const char* what, const char* key) {
  if (!(value > 0) || !std::isfinite(value)) {
    throw ConfigError(std::string(what) + " must be a positive number (got " + number_text(value) + ")", key);
  }
}

}  // namespace

void validate(const PlanRequest& r) {
  validate(r.model, r.context);
  require_count(r.batch, kMaxDimension, "batch", "batch");
  require_count(r.layout.data_parallel, kMaxDevices, "data-parallel size", "dp");
  require_count(r.layout.fsdp, kMaxDevices, "FSDP size", "fsdp");
  require_count(r.layout.tensor_parallel, kMaxDevices, "tensor-parallel size", "tp");
  const double f = r.layout.fsdp_activation_fraction;
  if (!(f >= 0 && f <= 1)) {
    throw ConfigError("the fraction of activations FSDP shards must be between 0 and 1 (got " + number_text(f) + ")",
                      "activation_fraction");
  }
  require_positive(r.device_memory_bytes, "device memory", "device_memory");
  validate(r.scaling_book);
  if (r.all_reduce) {
    require_positive(r.all_reduce->bandwidth_Bps, "all-reduce bandwidth w", "all_reduce");
    require_positive(r.all_reduce->overhead_s, "all-reduce per-call overhead o", "all_reduce");
  }
}

void validate(const ScalingBookInputs& s) {
  require_positive(s.w_ici_Bps, "W_ici (bytes/s)", "w_ici");
  require_positive(s.c_flops, "C (FLOPs/s)", "c_flops");
  require_positive(s.m_x, "M_X", "m_x");
  require_positive(s.m_y, "M_Y", "m_y");
  require_count(s.x, kMaxDevices, "X (the FSDP dimension)", "x");
  require_count(s.y, kMaxDevices, "Y (the TP dimension)", "y");
}

}  // namespace stepscope::planner
