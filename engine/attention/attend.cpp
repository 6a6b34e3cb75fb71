#include "attention/attend.h"

#include "attention/flash_attention.h"
#include "attention/naive_attention.h"
#include "compat/torch_compat.h"
#include "kernels/flash_attention_args.h"
#include "core/config_error.h"
#include "core/device.h"

namespace stepscope {

at::Tensor attend(AttentionImpl impl, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal) {
  switch (impl) {
    case AttentionImpl::naive: return naive_attention(q, k, v, causal);
    case AttentionImpl::sdpa: return compat::scaled_dot_product_attention(q, k, v, causal);
    case AttentionImpl::flash: return flash_attention(q, k, v, causal);
  }
  return naive_attention(q, k, v, causal);
}

void check_attention_impl(AttentionImpl impl, const Device& device, int64_t head_dim, int64_t seq_q,
                          int64_t seq_k) {
  if (impl == AttentionImpl::sdpa && !compat::has_scaled_dot_product_attention()) {
    throw ConfigError("sdpa needs LibTorch 2.0 or newer; this build has LibTorch " + compat::libtorch_version() +
                          " (use naive or flash)",
                      "impl");
  }
  if (impl == AttentionImpl::flash && device.is_cuda()) {
    kernels::AttentionShape shape;
    shape.seq_q = seq_q;
    shape.seq_k = seq_k;
    shape.head_dim = head_dim;
    const std::string problem = kernels::flash_shape_problem(shape);
    if (!problem.empty()) throw ConfigError(problem + " (naive and sdpa take any head dim)", "d");
  }
}

}  // namespace stepscope
