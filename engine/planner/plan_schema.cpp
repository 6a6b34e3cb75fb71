#include "planner/plan_schema.h"

#include <cmath>

#include "planner/plan_text.h"

namespace stepscope::planner {

using schema::Column;
using schema::ColumnKind;
using schema::ColumnRole;
using schema::Value;

namespace {

Value optional_value(const std::optional<double>& v) { return v ? Value(*v) : Value(std::monostate{}); }

// Whole counts and byte sizes as integers: files write 1998235200, not 1.9982352e+09.
Value whole_if_integral(const std::optional<double>& v) {
  if (v && std::floor(*v) == *v && std::fabs(*v) < 9007199254740992.0) return Value(static_cast<int64_t>(*v));
  return optional_value(v);
}

PlanLine count(PlanQuantity q, const std::string& label, double value, const std::string& formula) {
  return {q, label, value, std::nullopt, formula};
}

PlanLine size(PlanQuantity q, const std::string& label, const Amount& a) { return {q, label, std::nullopt, a.bytes, a.formula}; }

schema::Schema<PlanLine> make_plan_schema() {
  schema::Schema<PlanLine> s{"plan", {}};
  auto& f = s.fields;
  f.push_back({Column{"quantity", "Quantity", ColumnKind::text, ColumnRole::identity},
               [](const PlanLine& l) { return Value(to_string(l.quantity)); }});
  f.push_back({Column{"label", "What", ColumnKind::text, ColumnRole::measure},
               [](const PlanLine& l) { return Value(l.label); }});
  f.push_back({Column{"value", "Value", ColumnKind::integer, ColumnRole::measure, "Counts: parameters, GPUs, N_FSDP, tokens, buckets"},
               [](const PlanLine& l) { return whole_if_integral(l.value); }});
  f.push_back({Column{"bytes", "Bytes", ColumnKind::bytes, ColumnRole::measure, "Per device"},
               [](const PlanLine& l) { return whole_if_integral(l.bytes); }});
  f.push_back({Column{"gb", "GB", ColumnKind::real, ColumnRole::detail, "10^9 bytes (in files; the screen's Bytes column picks its unit)"},
               [](const PlanLine& l) { return optional_value(l.bytes ? std::optional(*l.bytes / kGB) : std::nullopt); }});
  f.push_back({Column{"gib", "GiB", ColumnKind::real, ColumnRole::detail, "2^30 bytes (in files; the screen's Bytes column picks its unit)"},
               [](const PlanLine& l) { return optional_value(l.bytes ? std::optional(*l.bytes / kGiB) : std::nullopt); }});
  f.push_back({Column{"formula", "Formula", ColumnKind::text, ColumnRole::measure, "With the values substituted"},
               [](const PlanLine& l) { return Value(l.formula); }});
  return s;
}

schema::Schema<MeasuredLine> make_measured_schema() {
  schema::Schema<MeasuredLine> s{"plan.measured", {}};
  auto& f = s.fields;
  f.push_back({Column{"quantity", "Quantity", ColumnKind::text, ColumnRole::identity},
               [](const MeasuredLine& l) { return Value(to_string(l.quantity)); }});
  f.push_back({Column{"planned_bytes", "Planned", ColumnKind::bytes, ColumnRole::measure, "Per device"},
               [](const MeasuredLine& l) { return whole_if_integral(l.planned_bytes); }});
  f.push_back({Column{"measured_bytes", "Measured", ColumnKind::bytes, ColumnRole::measure, "The memory profiler's, per device"},
               [](const MeasuredLine& l) { return whole_if_integral(l.measured_bytes); }});
  f.push_back({Column{"difference_bytes", "Measured - planned", ColumnKind::bytes, ColumnRole::measure,
                      "Above zero: the allocator's rounding, or state the plan does not count"},
               [](const MeasuredLine& l) {
                 return whole_if_integral(l.measured_bytes ? std::optional(*l.measured_bytes - l.planned_bytes) : std::nullopt);
               }});
  f.push_back({Column{"difference_percent", "Difference", ColumnKind::percent, ColumnRole::measure, "Of the planned bytes"},
               [](const MeasuredLine& l) {
                 const bool known = l.measured_bytes && l.planned_bytes > 0;
                 return schema::value_if(known, known ? 100 * (*l.measured_bytes - l.planned_bytes) / l.planned_bytes : 0.0);
               }});
  f.push_back({Column{"tensor_bytes", "As tensors", ColumnKind::bytes, ColumnRole::measure,
                      "The same tensors at their own sizes, before the allocator rounds them into blocks"},
               [](const MeasuredLine& l) { return whole_if_integral(l.tensor_bytes); }});
  f.push_back({Column{"allocator_rounding_bytes", "Allocator rounding", ColumnKind::bytes, ColumnRole::measure,
                      "Measured - as tensors: block bytes the tensors do not use"},
               [](const MeasuredLine& l) {
                 const bool known = l.measured_bytes && l.tensor_bytes;
                 return whole_if_integral(known ? std::optional(*l.measured_bytes - *l.tensor_bytes) : std::nullopt);
               }});
  f.push_back({Column{"unexplained_bytes", "Tensors - planned", ColumnKind::bytes, ColumnRole::measure,
                      "Zero when the plan counts every tensor the run held"},
               [](const MeasuredLine& l) {
                 return whole_if_integral(l.tensor_bytes ? std::optional(*l.tensor_bytes - l.planned_bytes) : std::nullopt);
               }});
  return s;
}

}  // namespace

std::string to_string(PlanQuantity q) {
  switch (q) {
    case PlanQuantity::parameters: return "parameters";
    case PlanQuantity::master_weights: return "master_weights";
    case PlanQuantity::gradients: return "gradients";
    case PlanQuantity::optimizer_state: return "optimizer_state";
    case PlanQuantity::activations_per_token: return "activations_per_token";
    case PlanQuantity::activations: return "activations";
    case PlanQuantity::total: return "total";
    case PlanQuantity::single_device: return "single_device";
    case PlanQuantity::devices_80gb: return "devices_80gb";
    case PlanQuantity::devices_80gib: return "devices_80gib";
    case PlanQuantity::fsdp_to_fit: return "fsdp_to_fit";
    case PlanQuantity::scaling_book_per_device_batch: return "scaling_book_per_device_batch";
    case PlanQuantity::scaling_book_global_batch: return "scaling_book_global_batch";
    case PlanQuantity::ddp_bucket_bytes: return "ddp_bucket_bytes";
  }
  return "?";
}

std::vector<PlanLine> plan_lines(const Plan& plan) {
  const MemoryPlan& m = plan.memory;
  const ScalingBookPlan& sb = plan.scaling_book;
  std::vector<PlanLine> out;
  out.push_back(count(PlanQuantity::parameters, "Parameters", static_cast<double>(m.parameters), m.parameters_formula));
  out.push_back(size(PlanQuantity::master_weights, "Master weights", m.master_weights));
  out.push_back(size(PlanQuantity::gradients, "Accumulated gradients", m.gradients));
  out.push_back(size(PlanQuantity::optimizer_state, "Optimizer state (AdamW)", m.optimizer_state));
  out.push_back(size(PlanQuantity::activations_per_token, "Activations per token", m.activations_per_token));
  out.push_back(size(PlanQuantity::activations, "Activations for the batch", m.activations));
  out.push_back(size(PlanQuantity::total, "Total per device", m.total));
  out.push_back(size(PlanQuantity::single_device, "Whole step on one device", m.single_device));
  out.push_back(count(PlanQuantity::devices_80gb, "80 GB GPUs (10^9 B)", static_cast<double>(m.devices_80gb), m.devices_formula));
  out.push_back(count(PlanQuantity::devices_80gib, "80 GiB GPUs (2^30 B)", static_cast<double>(m.devices_80gib), m.devices_formula));
  PlanLine fit{PlanQuantity::fsdp_to_fit, "FSDP size to fit the device", std::nullopt, std::nullopt, m.fsdp_to_fit.formula};
  if (m.fsdp_to_fit.fsdp > 0) {
    fit.value = static_cast<double>(m.fsdp_to_fit.fsdp);
    fit.bytes = m.fsdp_to_fit.per_device_bytes;
  }
  out.push_back(fit);
  PlanLine per_device{PlanQuantity::scaling_book_per_device_batch, "Compute-bound batch per chip (tokens)", std::nullopt,
                      std::nullopt, sb.per_device_formula};
  PlanLine global{PlanQuantity::scaling_book_global_batch, "Compute-bound global batch (tokens)", std::nullopt,
                  std::nullopt, sb.global_formula};
  if (sb.compute_bound_possible) {
    per_device.value = static_cast<double>(sb.per_device_batch_tokens);  // the real b* is in the formula
    global.value = static_cast<double>(sb.global_batch_tokens);
  }
  out.push_back(per_device);
  out.push_back(global);
  if (plan.ddp_buckets) {
    const auto& ddp = *plan.ddp_buckets;
    const double buckets = static_cast<double>(ddp.optimum.best_buckets);
    out.push_back({PlanQuantity::ddp_bucket_bytes, "DDP buckets with the least overhead (count; bucket bytes)", buckets,
                   ddp.gradient_bytes / buckets, ddp.formula});
  }
  return out;
}

const schema::Schema<PlanLine>& plan_schema() {
  static const auto schema = make_plan_schema();
  return schema;
}

schema::Table plan_table(const Plan& plan) { return plan_schema().table(plan_lines(plan)); }

std::vector<MeasuredLine> measured_lines(const Plan& plan, const MeasuredState& measured) {
  const MemoryPlan& m = plan.memory;
  return {{PlanQuantity::master_weights, m.master_weights.bytes, measured.parameter_bytes, measured.parameter_tensor_bytes},
          {PlanQuantity::gradients, m.gradients.bytes, measured.gradient_bytes, measured.gradient_tensor_bytes},
          {PlanQuantity::optimizer_state, m.optimizer_state.bytes, measured.optimizer_state_bytes,
           measured.optimizer_state_tensor_bytes}};
}

const schema::Schema<MeasuredLine>& measured_schema() {
  static const auto schema = make_measured_schema();
  return schema;
}

schema::Table measured_table(const Plan& plan, const MeasuredState& measured) {
  return measured_schema().table(measured_lines(plan, measured));
}

}  // namespace stepscope::planner
