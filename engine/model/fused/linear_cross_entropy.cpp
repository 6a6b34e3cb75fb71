// linear_cross_entropy: the autograd function. The forward makes the logits a chunk of rows at a
// time, lets cross_entropy_rows turn each chunk into its losses and d loss / d logits in place,
// and at once takes the chunk's share of dx (logits @ W) and dW (logits^T @ x); the backward
// only scales those by the incoming gradient. Memory: one chunk of logits in the compute type,
// dx, dW (the master's type) and, when the compute type differs from the master's, one
// [vocab, d] product in the compute type per chunk.
#include "model/fused/linear_cross_entropy.h"

#include <algorithm>
#include <string>

#include <torch/torch.h>

#include "core/config_error.h"

namespace stepscope::fused {

namespace {

constexpr int64_t kChunkLogitsBytes = int64_t{256} << 20;

std::string shape_text(const at::Tensor& t) {
  std::string text = "(";
  for (int64_t i = 0; i < t.dim(); ++i) text += (i ? ", " : "") + std::to_string(t.size(i));
  return text + ")";
}

bool is_float_type(c10::ScalarType type) {
  return type == at::kFloat || type == at::kBFloat16 || type == at::kHalf;
}

void check_inputs(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& compute_weight,
                  const at::Tensor& targets) {
  const auto refuse = [&](const std::string& why) {
    throw ConfigError("linear cross-entropy cannot take x " + shape_text(x) + ", weight " + shape_text(weight) +
                      ", targets " + shape_text(targets) + ": " + why);
  };
  if (x.dim() < 1) refuse("x must be [..., d]");
  if (weight.dim() != 2) refuse("weight must be [vocab, d]");
  if (weight.size(0) < 1) refuse("vocab must be at least 1");
  if (x.size(-1) != weight.size(1)) refuse("x's last dimension must equal weight's d");
  if (compute_weight.sizes() != weight.sizes()) refuse("compute_weight must have weight's shape");
  if (targets.sizes() != x.sizes().slice(0, x.dim() - 1)) refuse("targets must have x's leading shape");
  if (targets.scalar_type() != at::kLong) refuse("targets must be int64");
  if (!is_float_type(x.scalar_type()) || !is_float_type(weight.scalar_type())) {
    refuse("x and weight must be float32, bfloat16 or float16");
  }
  if (compute_weight.scalar_type() != x.scalar_type()) refuse("compute_weight must have x's type");
  if (weight.device() != x.device() || compute_weight.device() != x.device() || targets.device() != x.device()) {
    refuse("x, weight, compute_weight and targets must be on one device");
  }
}

// What the forward leaves for the backward: d (sum of losses) / dx and / dW times grad_scale,
// to be multiplied by the incoming gradient times post_scale.
struct ForwardResult {
  at::Tensor loss, dx, dw;
  double post_scale = 1.0;
};

ForwardResult forward_pass(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& compute_weight,
                           const at::Tensor& targets, int64_t chunk_rows, bool need_dx, bool need_dw) {
  const int64_t rows = x.size(0), vocab = weight.size(0);
  const bool grads = need_dx || need_dw;
  // The mean's 1/rows goes into the written gradient (ranges like the unfused path's), except in
  // fp16: there (softmax - one_hot) / rows would flush to zero wherever softmax < rows * 6e-8
  // (every non-target logit at initialisation, vocab 10^4, 4096 rows), so fp16 keeps the
  // gradient unscaled and the backward applies the 1/rows.
  const bool half = x.scalar_type() == at::kHalf;
  const double grad_scale = !grads ? 0.0 : half ? 1.0 : 1.0 / static_cast<double>(std::max<int64_t>(rows, 1));
  ForwardResult r;
  r.post_scale = half ? 1.0 / static_cast<double>(std::max<int64_t>(rows, 1)) : 1.0;
  auto losses = at::empty({rows}, x.options().dtype(at::kFloat));
  if (need_dx) r.dx = at::empty({rows, x.size(1)}, x.options());
  const bool same_type = x.scalar_type() == weight.scalar_type();
  const at::Tensor wt = compute_weight.t();
  const int64_t chunk =
      chunk_rows > 0 ? chunk_rows : linear_cross_entropy_chunk_rows(rows, vocab, x.element_size());
  for (int64_t start = 0; start < rows; start += chunk) {
    const int64_t n = std::min(chunk, rows - start);
    const auto xc = x.narrow(0, start, n);
    auto logits = at::mm(xc, wt);
    auto chunk_losses = losses.narrow(0, start, n);
    cross_entropy_rows(logits, targets.narrow(0, start, n), chunk_losses, grad_scale);
    if (need_dx) {
      auto dxc = r.dx.narrow(0, start, n);
      at::mm_out(dxc, logits, compute_weight);
    }
    if (need_dw) {
      if (same_type) {
        if (start == 0) {
          r.dw = at::mm(logits.t(), xc);
        } else {
          r.dw.addmm_(logits.t(), xc);
        }
      } else {
        // The chunk's product in the compute type (as the unfused path's matmul makes it), then
        // accumulated in the master's type.
        const auto product = at::mm(logits.t(), xc);
        if (start == 0) {
          r.dw = product.to(weight.scalar_type());
        } else {
          r.dw.add_(product);
        }
      }
    }
  }
  if (need_dw && !r.dw.defined()) r.dw = at::zeros(weight.sizes(), weight.options());  // rows == 0
  r.loss = losses.sum().div_(static_cast<double>(rows));
  return r;
}

class LinearCrossEntropyFunction : public torch::autograd::Function<LinearCrossEntropyFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight,
                            const at::Tensor& compute_weight, const at::Tensor& targets, int64_t chunk_rows,
                            bool need_dx, bool need_dw) {
    auto r = forward_pass(x, weight, compute_weight, targets, chunk_rows, need_dx, need_dw);
    // Kept in saved_data rather than saved variables, so the backward can take the only
    // reference, scale in place and hand the tensors to the gradient accumulators, which then
    // adopt them instead of copying.
    ctx->saved_data["dx"] = r.dx;
    ctx->saved_data["dw"] = r.dw;
    ctx->saved_data["post_scale"] = r.post_scale;
    ctx->saved_data["used"] = false;
    return r.loss;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    if (ctx->saved_data["used"].toBool()) {
      throw std::runtime_error(
          "linear_cross_entropy's backward can run once per forward: its gradients were computed in the "
          "forward and handed over by the first backward");
    }
    ctx->saved_data["used"] = true;
    at::Tensor dx = ctx->saved_data["dx"].toTensor();
    at::Tensor dw = ctx->saved_data["dw"].toTensor();
    ctx->saved_data["dx"] = at::IValue();
    ctx->saved_data["dw"] = at::IValue();
    const double post_scale = ctx->saved_data["post_scale"].toDouble();
    // A 0-dim tensor on the loss's device: multiplying by it never waits for the GPU.
    const at::Tensor& g = grad_outputs[0];
    const at::Tensor factor = post_scale == 1.0 ? g : g * post_scale;
    if (dx.defined()) dx.mul_(factor);
    if (dw.defined()) dw.mul_(factor);
    return {dx, dw, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

int64_t linear_cross_entropy_chunk_rows(int64_t rows, int64_t vocab, int64_t element_bytes) {
  if (rows <= 0) return 1;
  const int64_t row_bytes = std::max<int64_t>(1, vocab * element_bytes);
  const int64_t most = std::max<int64_t>(1, kChunkLogitsBytes / row_bytes);
  const int64_t chunks = (rows + most - 1) / most;
  return (rows + chunks - 1) / chunks;  // equal chunks rather than full ones and a short last one
}

at::Tensor linear_cross_entropy(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& compute_weight,
                                const at::Tensor& targets, int64_t chunk_rows) {
  check_inputs(x, weight, compute_weight, targets);
  // [..., d] as [rows, d]; 2-D inputs as they are (no view node in the graph).
  const auto x2 = x.dim() == 2 ? x : x.reshape({-1, x.size(-1)});
  const auto t = targets.dim() == 1 ? targets : targets.reshape({-1});
  const bool grad_mode = at::GradMode::is_enabled();
  const bool need_dx = grad_mode && x.requires_grad();
  const bool need_dw = grad_mode && weight.requires_grad();
  if (!need_dx && !need_dw) {
    // Not differentiable here (compute_weight is not a differentiable input): no graph, and the
    // in-place row op must not be recorded.
    const at::NoGradGuard no_grad;
    return forward_pass(x2, weight, compute_weight, t, chunk_rows, false, false).loss;
  }
  return LinearCrossEntropyFunction::apply(x2, weight, compute_weight, t, chunk_rows, need_dx, need_dw);
}

}  // namespace stepscope::fused
