#include "model/fused/cuda/rope_qkv_gpu.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>

#include "kernels/element_type_of.h"
#include "kernels/cuda/fused/rope_qkv_kernels.h"

namespace stepscope::fused {

namespace {

// Rows of d_head / 2 entries one after another: the model's tables (and their first rows) are.
at::Tensor contiguous_table(const at::Tensor& t) { return t.is_contiguous() ? t : t.contiguous(); }

kernels::RopeHeadStrides strides_of(const at::Tensor& t) {
  return {t.stride(0), t.stride(1), t.stride(2), t.stride(3)};
}

cudaStream_t current_stream() { return c10::cuda::getCurrentCUDAStream().stream(); }

}  // namespace

at::Tensor rope_qkv_forward_gpu(const at::Tensor& qkv_in, const at::Tensor& cos_in, const at::Tensor& sin_in,
                                int64_t num_heads) {
  const c10::cuda::CUDAGuard guard(qkv_in.device());
  // The kernel reads rows through their batch and seq strides; inside a row it needs stride 1.
  const auto qkv = qkv_in.stride(-1) == 1 ? qkv_in : qkv_in.contiguous();
  const auto cos = contiguous_table(cos_in), sin = contiguous_table(sin_in);
  auto out = at::empty(qkv.sizes(), qkv.options());
  if (out.numel() == 0) return out;
  kernels::RopeQkvForwardArgs args;
  args.shape = {qkv.size(0), qkv.size(1), num_heads, qkv.size(2) / 3 / num_heads};
  args.type = kernels::element_type_of(qkv);
  args.qkv = qkv.data_ptr();
  args.qkv_batch_stride = qkv.stride(0);
  args.qkv_seq_stride = qkv.stride(1);
  args.out = out.data_ptr();
  args.tables = {cos.data_ptr<float>(), sin.data_ptr<float>()};
  kernels::rope_qkv_forward_cuda(args, current_stream());
  return out;
}

at::Tensor rope_qkv_backward_gpu(const at::Tensor& dq, const at::Tensor& dk, const at::Tensor& dv,
                                 const at::Tensor& cos_in, const at::Tensor& sin_in) {
  const c10::cuda::CUDAGuard guard(dq.device());
  const auto cos = contiguous_table(cos_in), sin = contiguous_table(sin_in);
  const int64_t batch = dq.size(0), heads = dq.size(1), seq = dq.size(2), d_head = dq.size(3);
  auto d_qkv = at::empty({batch, seq, 3 * heads * d_head}, dq.options().memory_format(at::MemoryFormat::Contiguous));
  if (d_qkv.numel() == 0) return d_qkv;
  kernels::RopeQkvBackwardArgs args;
  args.shape = {batch, seq, heads, d_head};
  args.type = kernels::element_type_of(dq);
  args.dq = dq.data_ptr();
  args.dk = dk.data_ptr();
  args.dv = dv.data_ptr();
  args.dq_strides = strides_of(dq);
  args.dk_strides = strides_of(dk);
  args.dv_strides = strides_of(dv);
  args.d_qkv = d_qkv.data_ptr();
  args.tables = {cos.data_ptr<float>(), sin.data_ptr<float>()};
  kernels::rope_qkv_backward_cuda(args, current_stream());
  return d_qkv;
}

}  // namespace stepscope::fused
