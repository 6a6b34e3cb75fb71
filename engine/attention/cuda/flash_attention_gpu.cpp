#include "attention/cuda/flash_attention_gpu.h"

#include <cmath>

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>

#include "kernels/cuda/flash_attention_cuda.h"

namespace stepscope {

namespace {

kernels::ElementType element_type(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case torch::kFloat16: return kernels::ElementType::f16;
    case torch::kBFloat16: return kernels::ElementType::bf16;
    default: return kernels::ElementType::f32;
  }
}

// (batch, seq, d) is (batch, 1, seq, d); the last dimension is made contiguous.
at::Tensor as_four_dims(const at::Tensor& t) {
  auto four = t.dim() == 3 ? t.unsqueeze(1) : t;
  return four.stride(-1) == 1 ? four : four.contiguous();
}

kernels::Strides strides_of(const at::Tensor& t) { return {t.stride(0), t.stride(1), t.stride(2)}; }

kernels::AttentionShape shape_of(const at::Tensor& q, const at::Tensor& k, bool causal) {
  return {q.size(0), q.size(1), q.size(2), k.size(2), q.size(3), causal};
}

// What the forward and backward arguments share: shape, type, scale and the inputs.
template <class Args>
void set_inputs(Args& args, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal) {
  args.shape = shape_of(q, k, causal);
  args.type = element_type(q);
  args.softmax_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(q.size(3))));
  args.q = q.data_ptr();
  args.k = k.data_ptr();
  args.v = v.data_ptr();
  args.q_strides = strides_of(q);
  args.k_strides = strides_of(k);
  args.v_strides = strides_of(v);
}

at::Tensor like_input(const at::Tensor& four, const at::Tensor& original) {
  return original.dim() == 3 ? four.squeeze(1) : four;
}

}  // namespace

FlashForwardResult flash_forward_gpu(const at::Tensor& q_in, const at::Tensor& k_in, const at::Tensor& v_in,
                                     bool causal) {
  const c10::cuda::CUDAGuard guard(q_in.device());
  const auto q = as_four_dims(q_in), k = as_four_dims(k_in), v = as_four_dims(v_in);
  // O in (batch, seq, heads, d) memory order, as LibTorch's fused kernels write it: the model's
  // transpose(1, 2).reshape of O is then a view, and dO comes back in the same order.
  auto o = torch::empty({q.size(0), q.size(2), q.size(1), q.size(3)}, q.options()).transpose(1, 2);
  auto lse = torch::empty({q.size(0), q.size(1), q.size(2)}, q.options().dtype(torch::kFloat32));
  kernels::FlashForwardArgs args;
  set_inputs(args, q, k, v, causal);
  args.o = o.data_ptr();
  args.lse = lse.data_ptr<float>();
  args.o_strides = strides_of(o);
  kernels::flash_forward_cuda(args, c10::cuda::getCurrentCUDAStream().stream());
  return {like_input(o, q_in), q_in.dim() == 3 ? lse.squeeze(1) : lse};
}

FlashGradients flash_backward_gpu(const at::Tensor& q_in, const at::Tensor& k_in, const at::Tensor& v_in,
                                  const at::Tensor& o_in, const at::Tensor& d_o_in, const at::Tensor& lse_in,
                                  bool causal) {
  const c10::cuda::CUDAGuard guard(q_in.device());
  const auto q = as_four_dims(q_in), k = as_four_dims(k_in), v = as_four_dims(v_in);
  const auto o = as_four_dims(o_in), d_o = as_four_dims(d_o_in.to(q_in.scalar_type()));
  const auto lse = (lse_in.dim() == 2 ? lse_in.unsqueeze(1) : lse_in).contiguous();
  // Gradients in their inputs' memory order, so autograd's views back to the inputs copy nothing.
  auto dq = torch::empty_like(q), dk = torch::empty_like(k), dv = torch::empty_like(v);
  const auto shape = shape_of(q, k, causal);
  auto workspace = torch::empty({kernels::flash_backward_workspace_floats(shape)}, q.options().dtype(torch::kFloat32));
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
  return {like_input(dq, q_in), like_input(dk, k_in), like_input(dv, v_in)};
}

}  // namespace stepscope
