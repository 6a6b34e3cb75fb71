#include "planner/scaling_book.h"

#include <cmath>
#include <sstream>

#include "model/checked_count.h"
#include "planner/plan_text.h"
#include "planner/plan_validate.h"

namespace stepscope::planner {

ScalingBookPlan plan_scaling_book(const ScalingBookInputs& in, int64_t d_model, int64_t d_ff) {
  validate(in);
  (void)d_model;  // D cancels: every term is linear in it
  const double F = static_cast<double>(d_ff), Y = static_cast<double>(in.y);
  ScalingBookPlan p;
  // Each input is a finite positive double, but their quotients need not be: --m-x 1e-308
  // makes F / (Y M_X) infinite, and b* with it.
  p.alpha = checked_finite(in.c_flops / in.w_ici_Bps, "alpha = C / W_ici", "c_flops");
  const double numerator = checked_finite(F / (Y * in.m_x), "F / (Y M_X)", "m_x");
  const double denominator = checked_finite(F / p.alpha - Y / in.m_y, "F / alpha - Y / M_Y", "m_y");
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
  // b* is past any count from a tiny M_X (a huge numerator) or a denominator just above zero
  // (F / alpha just above Y / M_Y): the refusal names the side that did it.
  const char* blame = denominator < 1 ? "m_y" : "m_x";
  p.per_device_batch = checked_finite(numerator / denominator, "b*", blame);
  p.per_device_batch_tokens = checked_count(std::ceil(p.per_device_batch), "ceil(b*) tokens per chip", blame);
  const char* what = "the global batch in tokens (ceil(b*) x X x Y)";
  p.global_batch_tokens = checked_product(checked_product(p.per_device_batch_tokens, in.x, what, "x"), in.y, what, "y");
  s << " = " << number_text(p.per_device_batch) << " -> " << p.per_device_batch_tokens << " tokens per chip";
  p.per_device_formula = s.str();
  std::ostringstream g;
  g << "B = ceil(b*) x X x Y = " << p.per_device_batch_tokens << " x " << in.x << " x " << in.y << " = "
    << p.global_batch_tokens << " tokens";
  p.global_formula = g.str();
  return p;
}

}  // namespace stepscope::planner
