#include "model/fused/fused_linear.h"

#include <torch/torch.h>

namespace stepscope::fused {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class FusedLinearFunction : public torch::autograd::Function<FusedLinearFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& compute,
                            const at::Tensor* dweight_out, const std::function<void()>* written,
                            at::TensorList masters) {
    std::vector<int64_t> rows;
    for (const auto& m : masters) rows.push_back(m.size(0));
    ctx->saved_data["rows"] = rows;
    // Not an input (a pointer, not a tensor argument): nothing flows back into it.
    ctx->saved_data["dweight_out"] = dweight_out->defined() ? *dweight_out : at::Tensor();
    // saved_data holds IValues: the callback's address as an integer (its owner outlives backward).
    ctx->saved_data["written"] = static_cast<int64_t>(reinterpret_cast<intptr_t>(written));
    ctx->save_for_backward({x, compute});
    const auto x2 = x.reshape({-1, x.size(-1)});
    auto out_shape = x.sizes().vec();
    out_shape.back() = compute.size(0);
    return at::mm(x2, compute.t()).view(out_shape);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const auto& x = saved[0];
    const auto& compute = saved[1];
    const auto rows = ctx->saved_data["rows"].toIntVector();
    const auto dy = grad_outputs[0].reshape({-1, compute.size(0)});
    const auto x2 = x.reshape({-1, x.size(-1)});
    variable_list grads;
    grads.push_back(ctx->needs_input_grad(0) ? at::mm(dy, compute).view(x.sizes()) : at::Tensor());
    grads.push_back(at::Tensor());  // the compute copy learns nothing: its master does
    grads.push_back(at::Tensor());  // dweight_out and written, pointer arguments: slots all the same
    grads.push_back(at::Tensor());
    at::Tensor dweight_out = ctx->saved_data["dweight_out"].toTensor();
    if (dweight_out.defined()) {
      at::mm_out(dweight_out, dy.t(), x2);  // where the optimizer reads it
      const auto* written = reinterpret_cast<const std::function<void()>*>(
          static_cast<intptr_t>(ctx->saved_data["written"].toInt()));
      if (written && *written) (*written)();
      grads.resize(grads.size() + rows.size());
      return grads;
    }
    // dW in the compute type (as autocast's matmul makes it), then once to the masters' fp32.
    auto dw = at::mm(dy.t(), x2);
    if (dw.scalar_type() != at::kFloat) dw = dw.to(at::kFloat);
    for (auto& part : dw.split_with_sizes(rows, 0)) grads.push_back(part);
    return grads;
  }
};

}  // namespace

at::Tensor fused_linear(const at::Tensor& x, const at::Tensor& compute, const std::vector<at::Tensor>& masters,
                        const at::Tensor& dweight_out, const std::function<void()>* written) {
  TORCH_CHECK(compute.dim() == 2 && x.size(-1) == compute.size(1), "fused_linear: x ", x.sizes(), " against W ",
              compute.sizes());
  int64_t rows = 0;
  for (const auto& m : masters) rows += m.size(0);
  TORCH_CHECK(rows == compute.size(0), "fused_linear: the masters have ", rows, " rows, W has ", compute.size(0));
  if (dweight_out.defined()) {
    TORCH_CHECK(dweight_out.sizes() == compute.sizes() && dweight_out.scalar_type() == compute.scalar_type() &&
                    dweight_out.is_contiguous() && !dweight_out.requires_grad(),
                "fused_linear: dW goes into a contiguous ", compute.sizes(), " ", compute.scalar_type(),
                " tensor without autograd, got ", dweight_out.sizes(), " ", dweight_out.scalar_type());
  }
  TORCH_CHECK(!written || dweight_out.defined(), "fused_linear: `written` reports rows of dweight_out, which is undefined");
  return FusedLinearFunction::apply(x, compute, &dweight_out, written, at::TensorList(masters));
}

}  // namespace stepscope::fused
