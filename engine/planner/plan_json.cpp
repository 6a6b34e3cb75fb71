#include "planner/plan_json.h"

#include "io/json_reader.h"
#include "io/table_json.h"
#include "planner/plan_schema.h"

namespace stepscope::planner {

using nlohmann::json;

namespace {

json or_null(bool known, const json& value) { return known ? value : json(nullptr); }

}  // namespace

json request_to_json(const PlanRequest& r) {
  const auto& m = r.model;
  const auto& p = r.precisions;
  const auto& l = r.layout;
  const auto& s = r.scaling_book;
  json inputs = {
      {"model", {{"name", m.name}, {"blocks", to_string(m.blocks)}, {"d_model", m.d_model}, {"d_ff", m.d_ff},
                 {"layers", m.layers}, {"heads", m.heads}, {"vocab", m.vocab}}},
      {"precisions", {{"master_weights", to_string(p.master_weights)}, {"gradients", to_string(p.gradients)},
                      {"optimizer_state", to_string(p.optimizer_state)}, {"activations", to_string(p.activations)},
                      {"communication", to_string(p.communication)}}},
      {"layout", {{"dp", l.data_parallel}, {"fsdp", l.fsdp}, {"tp", l.tensor_parallel},
                  {"activation_fraction", json_double(l.fsdp_activation_fraction)},
                  {"zero1", l.shard_optimizer_over_dp}}},
      {"batch", r.batch},
      {"context", r.context},
      {"device_memory_bytes", json_double(r.device_memory_bytes)},
      {"scaling_book", {{"w_ici", json_double(s.w_ici_Bps)}, {"c_flops", json_double(s.c_flops)},
                        {"m_x", json_double(s.m_x)}, {"m_y", json_double(s.m_y)}, {"x", s.x}, {"y", s.y}}},
  };
  if (r.all_reduce) {
    inputs["all_reduce"] = {{"overhead_s", json_double(r.all_reduce->overhead_s)},
                            {"bandwidth_Bps", json_double(r.all_reduce->bandwidth_Bps)}};
  }
  return inputs;
}

json plan_to_json(const Plan& plan) {
  const MemoryPlan& m = plan.memory;
  const ScalingBookPlan& sb = plan.scaling_book;
  const bool fits = m.fsdp_to_fit.fsdp > 0;
  json out = {
      {"format", "stepscope-plan"},
      {"version", 1},
      {"inputs", request_to_json(plan.request)},
      {"devices", plan.devices},
      {"global_batch_sequences", plan.global_batch_sequences},
      {"parameters", m.parameters},
      {"master_weights_bytes", json_double(m.master_weights.bytes)},
      {"gradients_bytes", json_double(m.gradients.bytes)},
      {"optimizer_state_bytes", json_double(m.optimizer_state.bytes)},
      {"activations_per_token_bytes", json_double(m.activations_per_token.bytes)},
      {"activations_bytes", json_double(m.activations.bytes)},
      {"total_bytes", json_double(m.total.bytes)},
      {"single_device_bytes", json_double(m.single_device.bytes)},
      {"devices_80gb", m.devices_80gb},
      {"devices_80gib", m.devices_80gib},
      {"fsdp_to_fit", or_null(fits, m.fsdp_to_fit.fsdp)},
      {"fsdp_to_fit_bytes", or_null(fits, json_double(m.fsdp_to_fit.per_device_bytes))},
      {"scaling_book", {{"compute_bound_possible", sb.compute_bound_possible},
                        {"alpha", json_double(sb.alpha)},
                        {"per_device_batch", or_null(sb.compute_bound_possible, json_double(sb.per_device_batch))},
                        {"per_device_batch_tokens", or_null(sb.compute_bound_possible, sb.per_device_batch_tokens)},
                        {"global_batch_tokens", or_null(sb.compute_bound_possible, sb.global_batch_tokens)}}},
  };
  if (plan.ddp_buckets) {
    const auto& d = *plan.ddp_buckets;
    out["ddp_buckets"] = {{"gradient_bytes", json_double(d.gradient_bytes)},
                          {"buckets", json_double(d.optimum.buckets)},
                          {"bucket_bytes", json_double(d.optimum.bucket_bytes)},
                          {"overhead_s", json_double(d.optimum.overhead_s)},
                          {"best_buckets", d.optimum.best_buckets},
                          {"best_overhead_s", json_double(d.optimum.best_overhead_s)}};
  }
  json formulas = json::object();
  for (const auto& line : plan_lines(plan)) formulas[to_string(line.quantity)] = line.formula;
  out["formulas"] = formulas;
  out["table"] = table_to_json(plan_table(plan));
  return out;
}

void write_plan_json(std::ostream& out, const Plan& plan) { out << plan_to_json(plan).dump(2) << "\n"; }

}  // namespace stepscope::planner
