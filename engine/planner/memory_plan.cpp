#include "planner/memory_plan.h"

#include <cmath>
#include <sstream>
#include <vector>

#include "attention/attention_memory.h"
#include "model/checked_count.h"
#include "runners/memory_estimate.h"
#include "planner/plan_text.h"
#include "planner/plan_validate.h"

namespace stepscope::planner {

namespace {

constexpr int kAdamMoments = 2;
constexpr double k80GB = 80 * kGB;
constexpr double k80GiB = 80 * kGiB;

double element(Precision p) { return static_cast<double>(element_bytes(p)); }

// "4 B (fp32)"
std::string element_text(Precision p) { return std::to_string(element_bytes(p)) + " B (" + to_string(p) + ")"; }

// " / (8 FSDP x 4 TP)", " / 8 (FSDP)", or nothing on one device; `zero1` adds the DP ranks.
std::string shard_text(const ParallelLayout& l, bool zero1) {
  std::vector<std::string> parts;
  if (l.fsdp > 1) parts.push_back(std::to_string(l.fsdp) + " FSDP");
  if (l.tensor_parallel > 1) parts.push_back(std::to_string(l.tensor_parallel) + " TP");
  if (zero1 && l.data_parallel > 1 && l.shard_optimizer_over_dp) parts.push_back(std::to_string(l.data_parallel) + " ZeRO-1-DP");
  if (parts.empty()) return "";
  if (parts.size() == 1) {
    const auto space = parts[0].find(' ');
    return " / " + parts[0].substr(0, space) + " (" + parts[0].substr(space + 1) + ")";  // " / 8 (FSDP)"
  }
  std::string text = " / (";
  for (size_t i = 0; i < parts.size(); ++i) text += (i ? " x " : "") + parts[i];
  return text + ")";
}

// The DP ranks the optimizer state is split over: all of them under ZeRO-1, else none.
double optimizer_dp_shards(const ParallelLayout& l) {
  return l.shard_optimizer_over_dp ? static_cast<double>(l.data_parallel) : 1.0;
}

// What a device keeps of the activations: (1 - f) + f/N of them, then 1/T.
double activation_share(const ParallelLayout& l) {
  const double f = l.fsdp_activation_fraction, n = static_cast<double>(l.fsdp);
  return ((1 - f) + f / n) / static_cast<double>(l.tensor_parallel);
}

std::string activation_share_text(const ParallelLayout& l) {
  std::ostringstream s;
  if (l.fsdp > 1 && l.fsdp_activation_fraction > 0) {
    s << " x (" << number_text(1 - l.fsdp_activation_fraction) << " + " << number_text(l.fsdp_activation_fraction)
      << "/" << l.fsdp << " FSDP)";
  }
  if (l.tensor_parallel > 1) s << " / " << l.tensor_parallel << " (TP)";
  return s.str();
}

Amount state_amount(const char* what, double elements_per_param, Precision p, double parameters,
                    const ParallelLayout& l, bool zero1 = false) {
  const double shards = static_cast<double>(l.fsdp * l.tensor_parallel) * (zero1 ? optimizer_dp_shards(l) : 1.0);
  Amount a;
  a.bytes = elements_per_param * element(p) * parameters / shards;
  std::ostringstream s;
  s << what << " = " << (elements_per_param > 1 ? number_text(elements_per_param) + " moments x " : std::string())
    << element_text(p) << " x " << number_text(parameters) << " params" << shard_text(l, zero1) << " = " << size_text(a.bytes);
  a.formula = s.str();
  return a;
}

FsdpFit fit_fsdp(const PlanRequest& r, double model_state_bytes, double activation_bytes) {
  const auto& l = r.layout;
  const double f = l.fsdp_activation_fraction, t = static_cast<double>(l.tensor_parallel), m = r.device_memory_bytes;
  // S/(N T) + A/T ((1-f) + f/N) <= M  <=>  N >= (S + f A) / (T M - (1-f) A)
  const double room = t * m - (1 - f) * activation_bytes;
  const double needed = model_state_bytes + f * activation_bytes;
  std::ostringstream s;
  s << "N_FSDP >= (S + f A) / (T M - (1 - f) A) = (" << size_text(model_state_bytes) << " + " << number_text(f)
    << " x " << size_text(activation_bytes) << ") / (" << l.tensor_parallel << " x " << size_text(m) << " - "
    << number_text(1 - f) << " x " << size_text(activation_bytes) << ")";
  FsdpFit fit;
  if (!(room > 0)) {
    s << ": none, the unsharded activations alone exceed the device";
    fit.formula = s.str();
    return fit;
  }
  const double bound = needed / room;
  fit.fsdp = std::max<int64_t>(1, checked_count(std::ceil(bound), "the FSDP size that fits N_FSDP", "device_memory"));
  const double n = static_cast<double>(fit.fsdp);
  fit.per_device_bytes = model_state_bytes / (n * t) + activation_bytes / t * ((1 - f) + f / n);
  s << " = " << number_text(bound) << " -> " << fit.fsdp << " (" << size_text(fit.per_device_bytes)
    << " per device of " << size_text(m) << ")";
  fit.formula = s.str();
  return fit;
}

}  // namespace

Amount unsharded_activations(const PlanRequest& r) {
  const auto& m = r.model;
  const double tokens = static_cast<double>(r.batch) * static_cast<double>(r.context);
  const Precision p = r.precisions.activations;
  std::ostringstream s;
  Amount a;
  if (m.blocks == BlockKind::ffn_only) {
    const double per_token = element(p) * static_cast<double>(m.layers) * static_cast<double>(m.d_model + m.d_ff);
    a.bytes = per_token * tokens;
    s << "activations = " << element_text(p) << " x " << m.layers << " blocks x (d_model " << m.d_model << " + d_ff "
      << m.d_ff << ") x " << r.batch << " x " << r.context << " tokens = " << size_text(a.bytes);
  } else {
    BenchConfig c;
    c.model = to_model_config(m, r.context);
    c.batch = r.batch;
    c.context = r.context;
    c.precision = p;  // 16-bit: autocast, as the engine's runs use it
    c.mode = StepMode::train;
    a.bytes = estimate_activation_bytes(c);  // not estimate_memory's: that one saturates at 2^63
    s << "activations = engine estimate (model/memory_estimate: per layer 4 fp32 norm + 10 d_model + 4 d_ff tensors "
         "per token and the h x s x s softmax; 3 fp32 logits tensors) for "
      << r.batch << " x " << r.context << " tokens in " << to_string(p) << " = " << size_text(a.bytes);
  }
  a.formula = s.str();
  return a;
}

MemoryPlan plan_memory(const PlanRequest& r) {
  validate(r);
  const auto& pr = r.precisions;
  const auto& l = r.layout;
  MemoryPlan plan;
  plan.parameters = parameter_count(r.model);
  plan.parameters_formula = parameters_text(r.model);
  const double P = static_cast<double>(plan.parameters);
  plan.master_weights = state_amount("master weights", 1, pr.master_weights, P, l);
  plan.gradients = state_amount("gradients", 1, pr.gradients, P, l);
  plan.optimizer_state = state_amount("optimizer state", kAdamMoments, pr.optimizer_state, P, l, true);

  const Amount whole = unsharded_activations(r);
  const double tokens = static_cast<double>(r.batch) * static_cast<double>(r.context);
  const double share = activation_share(l);
  plan.activations.bytes = whole.bytes * share;
  const std::string share_text = activation_share_text(l);
  plan.activations.formula = share_text.empty() ? whole.formula : whole.formula + share_text + " = " + size_text(plan.activations.bytes);
  plan.activations_per_token.bytes = plan.activations.bytes / tokens;
  plan.activations_per_token.formula = "activations per token = " + size_text(plan.activations.bytes) + " / " +
                                       number_text(tokens) + " tokens = " + size_text(plan.activations_per_token.bytes);

  plan.total.bytes = plan.master_weights.bytes + plan.gradients.bytes + plan.optimizer_state.bytes + plan.activations.bytes;
  plan.total.formula = "total = weights + gradients + optimizer state + activations = " +
                       size_text(plan.master_weights.bytes) + " + " + size_text(plan.gradients.bytes) + " + " +
                       size_text(plan.optimizer_state.bytes) + " + " + size_text(plan.activations.bytes) + " = " +
                       gb_gib_text(plan.total.bytes);

  const double state_per_param = element(pr.master_weights) + element(pr.gradients) + kAdamMoments * element(pr.optimizer_state);
  const double model_state = state_per_param * P;
  // What FSDP has to split: under ZeRO-1 the optimizer state is already split over the DP ranks.
  const double fsdp_state = (element(pr.master_weights) + element(pr.gradients)) * P +
                            kAdamMoments * element(pr.optimizer_state) * P / optimizer_dp_shards(l);
  plan.single_device.bytes = model_state + whole.bytes;
  plan.single_device.formula = "one device = (" + number_text(element(pr.master_weights)) + " + " +
                               number_text(element(pr.gradients)) + " + 2 x " + number_text(element(pr.optimizer_state)) +
                               ") B x " + number_text(P) + " params + " + size_text(whole.bytes) +
                               " activations = " + gb_gib_text(plan.single_device.bytes);
  plan.devices_80gb = checked_count(std::ceil(plan.single_device.bytes / k80GB), "80 GB GPUs for the step", "batch");
  plan.devices_80gib = checked_count(std::ceil(plan.single_device.bytes / k80GiB), "80 GiB GPUs for the step", "batch");
  plan.devices_formula = "80 GB GPUs = ceil(" + size_text(plan.single_device.bytes) + " / 80e9 B) = " +
                         std::to_string(plan.devices_80gb) + "; in GiB, as the seeds count = ceil(" +
                         gib_text(plan.single_device.bytes) + " / 80 GiB) = " + std::to_string(plan.devices_80gib);
  plan.fsdp_to_fit = fit_fsdp(r, fsdp_state, whole.bytes);
  return plan;
}

}  // namespace stepscope::planner
