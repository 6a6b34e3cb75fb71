#include "planner/scaling_book.h"

#include <cmath>
#include <sstream>

#include "planner/plan_text.h"
#include "planner/plan_validate.h"

namespace stepscope::planner {

ScalingBookPlan plan_scaling_book(const ScalingBookInputs& in, int64_t d_model, int64_t d_ff) {
  validate(in);
  (void)d_model;  // D cancels: every term is linear in it
  const double F = static_cast<double>(d_ff), Y = static_cast<double>(in.y);
  ScalingBookPlan p;
  p.alpha = in.c_flops / in.w_ici_Bps;
  const double numerator = F / (Y * in.m_x);
  const double denominator = F / p.alpha - Y / in.m_y;
  std::ostringstream s;
  s << "b* = (F / (Y M_X)) / (F / alpha - Y / M_Y), alpha = C / W_ici = " << number_text(in.c_flops) << " / "
    << number_text(in.w_ici_Bps) << " = " << number_text(p.alpha) << ": (" << d_ff << " / (" << in.y << " x "
    << number_text(in.m_x) << ")) / (" << d_ff << " / " << number_text(p.alpha) << " - " << in.y << " / "
    << number_text(in.m_y) << ") = " << number_text(numerator) << " / " << number_text(denominator);
  p.compute_bound_possible = denominator > 0;
  if (!p.compute_bound_possible) {
    s << ": never compute-bound, the TP activations alone take longer to move than to multiply (F / alpha <= Y / M_Y)";
    p.per_device_formula = s.str();
    p.global_formula = "global batch: none";
    return p;
  }
  p.per_device_batch = numerator / denominator;
  p.per_device_batch_tokens = static_cast<int64_t>(std::ceil(p.per_device_batch));
  p.global_batch_tokens = p.per_device_batch_tokens * in.x * in.y;
  s << " = " << number_text(p.per_device_batch) << " -> " << p.per_device_batch_tokens << " tokens per chip";
  p.per_device_formula = s.str();
  std::ostringstream g;
  g << "B = ceil(b*) x X x Y = " << p.per_device_batch_tokens << " x " << in.x << " x " << in.y << " = "
    << p.global_batch_tokens << " tokens";
  p.global_formula = g.str();
  return p;
}

}  // namespace stepscope::planner
