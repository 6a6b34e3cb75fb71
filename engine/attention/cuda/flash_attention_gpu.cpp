#include "attention/cuda/flash_attention_gpu.h"

#include <cmath>

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>

#include "kernels/element_type_of.h"
#include "kernels/cuda/flash_attention_cuda.h"

namespace stepscope {

namespace {

// The kernels need the last dimension contiguous; everything else they take as strides.
at::Tensor last_dim_contiguous(const at::Tensor& t) { return t.stride(-1) == 1 ? t : t.contiguous(); }

// (batch, seq, d) is read as (batch, 1, seq, d) through its strides, without a view: the
// seeds' one-head sweeps are host-bound at short sequences, and each view op costs a dispatch.
kernels::Strides strides_of(const at::Tensor& t) {
  if (t.dim() == 3) return {t.stride(0), 0, t.stride(1)};  // the head stride of one head is never used
  return {t.stride(0), t.stride(1), t.stride(2)};
}

kernels::AttentionShape shape_of(const at::Tensor& q, const at::Tensor& k, bool causal) {
  const bool three = q.dim() == 3;
  return {q.size(0), three ? 1 : q.size(1), q.size(-2), k.size(-2), q.size(-1), causal};
}

// What the forward and backward arguments share: shape, type, scale and the inputs.
template <class Args>
void set_inputs(Args& args, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal) {
  args.shape = shape_of(q, k, causal);
  args.type = kernels::element_type_of(q);
  args.softmax_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(q.size(-1))));
  args.q = q.data_ptr();
  args.k = k.data_ptr();
  args.v = v.data_ptr();
  args.q_strides = strides_of(q);
  args.k_strides = strides_of(k);
  args.v_strides = strides_of(v);
}

}  // namespace

FlashForwardResult flash_forward_gpu(const at::Tensor& q_in, const at::Tensor& k_in, const at::Tensor& v_in,
                                     bool causal) {
  const c10::cuda::CUDAGuard guard(q_in.device());
  const auto q = last_dim_contiguous(q_in), k = last_dim_contiguous(k_in), v = last_dim_contiguous(v_in);
  const auto options = q.options();
  // O of (batch, heads, seq, d) in (batch, seq, heads, d) memory order, as LibTorch's fused
  // kernels write it: the model's transpose(1, 2).reshape of O is then a view, and dO comes back
  // in the same order.
  auto o = q.dim() == 3 ? at::empty(q.sizes(), options)
                        : at::empty({q.size(0), q.size(2), q.size(1), q.size(3)}, options).transpose(1, 2);
  auto lse = at::empty(q.sizes().slice(0, q.dim() - 1), options.dtype(at::kFloat));  // (batch[, heads], seq)
  kernels::FlashForwardArgs args;
  set_inputs(args, q, k, v, causal);
  args.o = o.data_ptr();
  args.lse = lse.data_ptr<float>();
  args.o_strides = strides_of(o);
  // Chunks of split key walks (grids that leave SMs idle); freed when the forward returns.
  at::Tensor workspace;
  if (const int64_t floats = kernels::flash_forward_workspace_floats(args); floats > 0) {
    workspace = at::empty({floats}, options.dtype(at::kFloat));
    args.workspace = workspace.data_ptr<float>();
  }
  kernels::flash_forward_cuda(args, c10::cuda::getCurrentCUDAStream().stream());
  return {o, lse};
}

FlashGradients flash_backward_gpu(const at::Tensor& q_in, const at::Tensor& k_in, const at::Tensor& v_in,
                                  const at::Tensor& o_in, const at::Tensor& d_o_in, const at::Tensor& lse_in,
                                  bool causal) {
  const c10::cuda::CUDAGuard guard(q_in.device());
  const auto q = last_dim_contiguous(q_in), k = last_dim_contiguous(k_in), v = last_dim_contiguous(v_in);
  const auto o = last_dim_contiguous(o_in);
  const auto d_o = last_dim_contiguous(d_o_in.scalar_type() == q.scalar_type() ? d_o_in : d_o_in.to(q.scalar_type()));
  const auto lse = lse_in.is_contiguous() ? lse_in : lse_in.contiguous();
  // Gradients in their inputs' memory order, so autograd's views back to the inputs copy nothing.
  auto dq = at::empty_like(q), dk = at::empty_like(k), dv = at::empty_like(v);
  const auto shape = shape_of(q, k, causal);
  auto workspace = at::empty({kernels::flash_backward_workspace_floats(shape)}, q.options().dtype(at::kFloat));
  kernels::FlashBackwardArgs args;
  set_inputs(args, q, k, v, causal);
  args.o = o.data_ptr();
  args.d_o = d_o.data_ptr();
  args.lse = lse.data_ptr<float>();
  args.dq = dq.data_ptr();
  args.dk = dk.data_ptr();
  args.dv = dv.data_ptr();
  args.workspace = workspace.data_ptr<float>();
  args.o_strides = strides_of(o);
  args.d_o_strides = strides_of(d_o);
  args.dq_strides = strides_of(dq);
  args.dk_strides = strides_of(dk);
  args.dv_strides = strides_of(dv);
  kernels::flash_backward_cuda(args, c10::cuda::getCurrentCUDAStream().stream());
  return {dq, dk, dv};
}

}  // namespace stepscope
