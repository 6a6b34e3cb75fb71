#include "model/fused/fused_adamw.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include <torch/torch.h>

#ifdef STEPSCOPE_WITH_CUDA
#include "model/fused/cuda/fused_adamw_gpu.h"
#endif

namespace stepscope::fused {

namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument("fused AdamW: " + message);
}

bool is_flat_fp32(const at::Tensor& t) {
  return t.defined() && t.dim() == 1 && t.scalar_type() == at::kFloat && t.is_contiguous();
}

bool is_gradient_type(at::ScalarType type) {
  return type == at::kFloat || type == at::kBFloat16 || type == at::kHalf;
}

// The contract of fused_adamw_update, checked the same way for the kernels and the reference.
void check_update(const at::Tensor& params, const std::vector<at::Tensor>& grads, const std::vector<int64_t>& offsets,
                  const at::Tensor& m, const at::Tensor& v, const at::Tensor& step, const at::Tensor& compute_copy,
                  const AdamWOptions& options) {
  check_adamw_options(options);
  require(is_flat_fp32(params), "params must be a contiguous 1-D fp32 tensor");
  const int64_t n = params.numel();
  const auto device = params.device();
  for (const auto& [state, name] : {std::pair{&m, "m"}, std::pair{&v, "v"}}) {
    require(is_flat_fp32(*state) && state->numel() == n && state->device() == device,
            std::string(name) + " must be a contiguous 1-D fp32 tensor of params' size on params' device");
  }
  require(step.defined() && step.scalar_type() == at::kLong && step.numel() == 1 && step.device() == device,
          "step must be an int64 tensor of one element on params' device");
  if (compute_copy.defined()) {
    require((compute_copy.scalar_type() == at::kBFloat16 || compute_copy.scalar_type() == at::kHalf) &&
                compute_copy.dim() == 1 && compute_copy.numel() == n && compute_copy.is_contiguous() &&
                compute_copy.device() == device,
            "the compute copy must be a contiguous 1-D bf16 or fp16 tensor of params' size on params' device");
  }
  require(grads.size() == offsets.size(), "grads (" + std::to_string(grads.size()) + ") and offsets (" +
                                              std::to_string(offsets.size()) + ") differ in length");
  std::vector<std::pair<int64_t, size_t>> ranges;  // (offset, index) of the gradients that update something
  for (size_t i = 0; i < grads.size(); ++i) {
    const auto& g = grads[i];
    if (!g.defined()) continue;
    const std::string which = "grads[" + std::to_string(i) + "]";
    require(is_gradient_type(g.scalar_type()), which + " must be fp32, bf16 or fp16");
    require(g.is_contiguous(), which + " must be contiguous");
    require(g.device() == device, which + " must be on params' device");
    require(offsets[i] >= 0 && offsets[i] <= n && g.numel() <= n - offsets[i],
            which + " (offset " + std::to_string(offsets[i]) + ", " + std::to_string(g.numel()) +
                " elements) reaches past params' " + std::to_string(n) + " elements");
    if (g.numel() > 0) ranges.emplace_back(offsets[i], i);
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t r = 1; r < ranges.size(); ++r) {
    const auto [before, i] = ranges[r - 1];
    const auto j = ranges[r].second;
    require(before + grads[i].numel() <= ranges[r].first,
            "grads[" + std::to_string(i) + "] and grads[" + std::to_string(j) + "] cover overlapping ranges");
  }
}

}  // namespace

void fused_adamw_update_reference(const at::Tensor& params, const std::vector<at::Tensor>& grads,
                                  const std::vector<int64_t>& offsets, const at::Tensor& m, const at::Tensor& v,
                                  const at::Tensor& step, const at::Tensor& compute_copy,
                                  const AdamWOptions& options) {
  check_update(params, grads, offsets, m, v, step, compute_copy, options);
  torch::NoGradGuard no_grad;
  step.add_(1);
  const int64_t t = step.item<int64_t>();  // a host sync: fine for the reference
  // model/adamw.cpp's multi-tensor update on views of the ranges (fp32 gradients: the same
  // values, exactly), in batches that bound its temporaries as AdamW::step's do.
  std::vector<at::Tensor> p_batch, g_batch, m_batch, v_batch;
  int64_t batch_elements = 0;
  auto flush = [&] {
    if (p_batch.empty()) return;
    adamw_update(p_batch, g_batch, m_batch, v_batch, t, options);
    p_batch.clear(), g_batch.clear(), m_batch.clear(), v_batch.clear();
    batch_elements = 0;
  };
  for (size_t i = 0; i < grads.size(); ++i) {
    const auto& g = grads[i];
    if (!g.defined() || g.numel() == 0) continue;
    const int64_t numel = g.numel();
    if (batch_elements > 0 && batch_elements + numel > options.chunk_elements) flush();
    p_batch.push_back(params.narrow(0, offsets[i], numel));
    g_batch.push_back(g.reshape({numel}).to(at::kFloat));
    m_batch.push_back(m.narrow(0, offsets[i], numel));
    v_batch.push_back(v.narrow(0, offsets[i], numel));
    batch_elements += numel;
  }
  flush();
  if (!compute_copy.defined()) return;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined() || grads[i].numel() == 0) continue;
    compute_copy.narrow(0, offsets[i], grads[i].numel()).copy_(params.narrow(0, offsets[i], grads[i].numel()));
  }
}

void fused_adamw_update(const at::Tensor& params, const std::vector<at::Tensor>& grads,
                        const std::vector<int64_t>& offsets, const at::Tensor& m, const at::Tensor& v,
                        const at::Tensor& step, const at::Tensor& compute_copy, const AdamWOptions& options) {
#ifdef STEPSCOPE_WITH_CUDA
  if (params.is_cuda()) {
    check_update(params, grads, offsets, m, v, step, compute_copy, options);
    fused_adamw_update_gpu(params, grads, offsets, m, v, step, compute_copy, options);
    return;
  }
#endif
  fused_adamw_update_reference(params, grads, offsets, m, v, step, compute_copy, options);
}

FusedAdamW::FusedAdamW(at::Tensor flat, std::vector<at::Tensor> parameters, at::Tensor compute_copy,
                       AdamWOptions options)
    : flat_(std::move(flat)),
      compute_copy_(std::move(compute_copy)),
      parameters_(std::move(parameters)),
      options_(options) {
  check_adamw_options(options_);
  require(is_flat_fp32(flat_), "the flat parameter buffer must be a contiguous 1-D fp32 tensor");
  const int64_t n = flat_.numel();
  const auto* base = static_cast<const char*>(flat_.data_ptr());
  std::vector<std::pair<int64_t, size_t>> ranges;
  offsets_.reserve(parameters_.size());
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const auto& p = parameters_[i];
    const std::string which = "parameter " + std::to_string(i);
    require(p.defined(), which + " is undefined");
    require(p.scalar_type() == at::kFloat && p.device() == flat_.device(),
            which + " must be fp32 on the flat buffer's device");
    require(p.is_contiguous(), which + " is not contiguous");
    require(p.is_alias_of(flat_), which + " is not a view of the flat buffer");
    const std::ptrdiff_t bytes = static_cast<const char*>(p.data_ptr()) - base;
    require(bytes % static_cast<std::ptrdiff_t>(sizeof(float)) == 0, which + " is not aligned to the flat buffer's elements");
    const int64_t offset = bytes / static_cast<std::ptrdiff_t>(sizeof(float));
    require(offset >= 0 && offset <= n && p.numel() <= n - offset,
            which + " (" + std::to_string(p.numel()) + " elements at offset " + std::to_string(offset) +
                ") lies outside the flat buffer of " + std::to_string(n) + " elements");
    offsets_.push_back(offset);
    if (p.numel() > 0) ranges.emplace_back(offset, i);
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t r = 1; r < ranges.size(); ++r) {
    const auto [before, i] = ranges[r - 1];
    require(before + parameters_[i].numel() <= ranges[r].first,
            "parameters " + std::to_string(i) + " and " + std::to_string(ranges[r].second) + " overlap in the flat buffer");
  }
  torch::NoGradGuard no_grad;
  m_ = torch::zeros_like(flat_);
  v_ = torch::zeros_like(flat_);
  step_ = torch::zeros({1}, flat_.options().dtype(at::kLong));
  if (compute_copy_.defined()) {
    require((compute_copy_.scalar_type() == at::kBFloat16 || compute_copy_.scalar_type() == at::kHalf) &&
                compute_copy_.dim() == 1 && compute_copy_.numel() == n && compute_copy_.is_contiguous() &&
                compute_copy_.device() == flat_.device(),
            "the compute copy must be a contiguous 1-D bf16 or fp16 tensor of the flat buffer's size and device");
    // The copy starts equal to the weights: each step then refreshes the ranges it updates.
    compute_copy_.copy_(flat_);
  }
}

void FusedAdamW::step() {
  std::vector<at::Tensor> grads;
  grads.reserve(parameters_.size());
  // The kernels read gradients as flat runs: an autograd gradient is contiguous already (then
  // .contiguous() is free); anything else is copied.
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const auto& grad = parameters_[i].grad();
    if (!grad.defined()) {
      grads.emplace_back();
      continue;
    }
    require(grad.numel() == parameters_[i].numel(),
            "the gradient of parameter " + std::to_string(i) + " has " + std::to_string(grad.numel()) +
                " elements, the parameter " + std::to_string(parameters_[i].numel()));
    grads.push_back(grad.contiguous());
  }
  fused_adamw_update(flat_, grads, offsets_, m_, v_, step_, compute_copy_, options_);
}

int64_t FusedAdamW::step_count() const { return step_.item<int64_t>(); }

}  // namespace stepscope::fused
