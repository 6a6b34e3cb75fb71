// The planner's tables, declared once for the CLI's CSV and console, run records and the
// Planner panel:
//   "plan": quantity,label,value,bytes,gb,gib,formula: one row per number of the plan; sizes
//     are per device in bytes, GB (10^9) and GiB (2^30); whole counts (parameters, GPUs,
//     N_FSDP, batch sizes in tokens rounded up, DDP buckets) in `value`.
//   "plan.measured": quantity,planned_bytes,measured_bytes,difference_bytes,difference_percent,
//     tensor_bytes,allocator_rounding_bytes,unexplained_bytes: a finished run's
//     parameter, gradient and optimizer-state bytes beside the plan's, the allocator's blocks
//     split into the tensors' own bytes and its rounding.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/plan.h"
#include "schema/schema.h"

namespace stepscope::planner {

enum class PlanQuantity {
  parameters,
  master_weights,
  gradients,
  optimizer_state,
  activations_per_token,
  activations,
  total,
  single_device,
  devices_80gb,
  devices_80gib,
  fsdp_to_fit,
  scaling_book_per_device_batch,
  scaling_book_global_batch,
  ddp_bucket_bytes,
};
std::string to_string(PlanQuantity quantity);  // the row's key: "master_weights", "fsdp_to_fit"

struct PlanLine {
  PlanQuantity quantity = PlanQuantity::parameters;
  std::string label;
  std::optional<double> value;  // counts
  std::optional<double> bytes;  // sizes
  std::string formula;
};

// The plan's rows in order (the DDP bucket row only when the plan has one).
std::vector<PlanLine> plan_lines(const Plan& plan);
const schema::Schema<PlanLine>& plan_schema();
schema::Table plan_table(const Plan& plan);

// What the memory profiler measured of a finished run, per device; missing what it did not.
// *_bytes: the allocator's blocks; *_tensor_bytes: the same tensors at their own sizes (known
// when the run labelled them with sizes), so blocks - tensors is the allocator's rounding.
struct MeasuredState {
  std::optional<double> parameter_bytes;
  std::optional<double> gradient_bytes;
  std::optional<double> optimizer_state_bytes;
  std::optional<double> parameter_tensor_bytes;
  std::optional<double> gradient_tensor_bytes;
  std::optional<double> optimizer_state_tensor_bytes;
};

struct MeasuredLine {
  PlanQuantity quantity = PlanQuantity::master_weights;
  double planned_bytes = 0;
  std::optional<double> measured_bytes;
  std::optional<double> tensor_bytes;
};

std::vector<MeasuredLine> measured_lines(const Plan& plan, const MeasuredState& measured);
const schema::Schema<MeasuredLine>& measured_schema();
schema::Table measured_table(const Plan& plan, const MeasuredState& measured);

}  // namespace stepscope::planner
