#include "model/fused/fused_lm.h"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "model/fused/fused_linear.h"
#include "model/fused/linear_cross_entropy.h"
#include "model/fused/rms_norm.h"
#include "model/fused/rotary_attention.h"
#include "model/fused/swiglu.h"
#include "model/init.h"
#include "model/transformer_lm.h"
#include "profiling/range_recorder.h"

namespace stepscope {

namespace {

constexpr double kNormEps = 1e-5;  // the reference RMSNorm's
// Each group of parameters starts on a 256-byte boundary (cuBLAS and vector loads like it).
constexpr int64_t kAlignElements = 64;

int64_t aligned(int64_t n) { return (n + kAlignElements - 1) / kAlignElements * kAlignElements; }

const ModelConfig& validated(const ModelConfig& config) {
  validate(config);
  return config;
}

// Registers `value` as parameter `path` ("layers.3.attn.q_proj.weight"), making the modules on
// the way, so that named_parameters() reads as the reference model's.
void register_at(torch::nn::Module& root, const std::string& path, const at::Tensor& value) {
  torch::nn::Module* node = &root;
  size_t start = 0;
  for (size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', start)) {
    const std::string part = path.substr(start, dot - start);
    std::shared_ptr<torch::nn::Module> child;
    for (const auto& named : node->named_children()) {
      if (named.key() == part) child = named.value();
    }
    if (!child) child = node->register_module(part, std::make_shared<torch::nn::Module>());
    node = child.get();
    start = dot + 1;
  }
  node->register_parameter(path.substr(start), value);
}

}  // namespace

FusedTransformerLM::FusedTransformerLM(const ModelConfig& config, const torch::TensorOptions& options,
                                       c10::ScalarType compute_dtype)
    : torch::nn::Module("FusedTransformerLM"), config_(validated(config)), compute_dtype_(compute_dtype) {
  const int64_t d = config_.d_model, f = config_.d_ff, vocab = config_.vocab_size;
  const int64_t layers = config_.num_layers;
  // Offsets in the fused order: each group (embeddings, q|k|v, o, w1|w3, w2, norms, head) aligned.
  int64_t size = 0;
  const auto take = [&](int64_t n) {
    const int64_t at = size;
    size = aligned(size + n);
    return at;
  };
  struct Offsets {
    int64_t qkv, o, w13, w2, ln1, ln2;
  };
  const int64_t embedding_at = take(vocab * d);
  std::vector<Offsets> at_layer;
  for (int64_t i = 0; i < layers; ++i) {
    Offsets o{};
    o.qkv = take(3 * d * d);
    o.o = take(d * d);
    o.w13 = take(2 * f * d);
    o.w2 = take(d * f);
    o.ln1 = take(d);
    o.ln2 = take(d);
    at_layer.push_back(o);
  }
  const int64_t ln_final_at = take(d);
  const int64_t head_at = take(vocab * d);
  flat_ = torch::zeros({size}, options.dtype(torch::kFloat32));
  const auto view = [&](const at::Tensor& buffer, int64_t at, at::IntArrayRef shape) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return buffer.narrow(0, at, n).view(shape);
  };

  // Registered and initialised in the reference's order: the same names, parameters() order
  // and random stream as TransformerLM for the same seed.
  embedding_ = view(flat_, embedding_at, {vocab, d});
  register_at(*this, "token_embeddings.weight", embedding_);
  truncated_normal_(embedding_, 1.0);
  blocks_.resize(static_cast<size_t>(layers));
  for (int64_t i = 0; i < layers; ++i) {
    const std::string prefix = "layers." + std::to_string(i) + ".";
    Block& b = blocks_[static_cast<size_t>(i)];
    const Offsets& o = at_layer[static_cast<size_t>(i)];
    const auto linear = [&](const std::string& name, int64_t at, int64_t d_out, int64_t d_in) {
      auto w = view(flat_, at, {d_out, d_in});
      register_at(*this, prefix + name + ".weight", w);
      truncated_normal_(w, linear_init_std(d_in, d_out));
      return w;
    };
    b.qkv = {linear("attn.q_proj", o.qkv, d, d), linear("attn.k_proj", o.qkv + d * d, d, d),
             linear("attn.v_proj", o.qkv + 2 * d * d, d, d)};
    b.o = {linear("attn.output_proj", o.o, d, d)};
    auto w1 = linear("ffn.w1", o.w13, f, d);
    b.w2 = {linear("ffn.w2", o.w2, d, f)};
    auto w3 = linear("ffn.w3", o.w13 + f * d, f, d);
    b.w13 = {w1, w3};
    b.ln1 = view(flat_, o.ln1, {d});
    b.ln2 = view(flat_, o.ln2, {d});
    b.ln1.fill_(1.0);
    b.ln2.fill_(1.0);
    register_at(*this, prefix + "ln1.weight", b.ln1);
    register_at(*this, prefix + "ln2.weight", b.ln2);
  }
  ln_final_ = view(flat_, ln_final_at, {d});
  ln_final_.fill_(1.0);
  register_at(*this, "ln_final.weight", ln_final_);
  lm_head_ = view(flat_, head_at, {vocab, d});
  register_at(*this, "lm_head.weight", lm_head_);
  truncated_normal_(lm_head_, linear_init_std(d, vocab));
  rope_ = RotaryEmbedding(config_.context_length, config_.d_head(), config_.rope_theta, options);

  compute_ = compute_dtype_ == torch::kFloat32 ? flat_ : flat_.to(compute_dtype_);
  for (int64_t i = 0; i < layers; ++i) {
    Block& b = blocks_[static_cast<size_t>(i)];
    const Offsets& o = at_layer[static_cast<size_t>(i)];
    b.qkv_c = view(compute_, o.qkv, {3 * d, d});
    b.o_c = view(compute_, o.o, {d, d});
    b.w13_c = view(compute_, o.w13, {2 * f, d});
    b.w2_c = view(compute_, o.w2, {d, f});
  }
  lm_head_c_ = view(compute_, head_at, {vocab, d});
  const auto* base = static_cast<const char*>(flat_.data_ptr());
  for (const auto& p : parameters()) {
    offsets_.push_back((static_cast<const char*>(p.data_ptr()) - base) / static_cast<int64_t>(flat_.element_size()));
  }
  stages_ = parameter_stages();
}

void FusedTransformerLM::set_gradient_buffer(at::Tensor buffer) {
  if (buffer.defined() && (buffer.scalar_type() != compute_.scalar_type() || buffer.dim() != 1 ||
                           buffer.numel() != flat_.numel() || !buffer.is_contiguous() ||
                           buffer.device() != flat_.device())) {
    throw std::invalid_argument("the gradient buffer must be a contiguous " +
                                std::string(c10::toString(compute_.scalar_type())) + " [" +
                                std::to_string(flat_.numel()) + "] tensor on " + flat_.device().str());
  }
  grad_buffer_ = buffer.defined() ? buffer.detach() : at::Tensor();
  const auto* base = static_cast<const char*>(compute_.data_ptr());
  // The same rows in the buffer as in the compute copy.
  const auto rows_of = [&](const at::Tensor& compute_view) {
    if (!grad_buffer_.defined()) return at::Tensor();
    const int64_t at = (static_cast<const char*>(compute_view.data_ptr()) - base) /
                       static_cast<int64_t>(compute_.element_size());
    return grad_buffer_.narrow(0, at, compute_view.numel()).view(compute_view.sizes());
  };
  const auto reporter = [&](const at::Tensor& compute_view) -> std::function<void()> {
    const int64_t first = (static_cast<const char*>(compute_view.data_ptr()) - base) /
                          static_cast<int64_t>(compute_.element_size());
    const int64_t numel = compute_view.numel();
    return [this, first, numel] {
      if (rows_listener_) rows_listener_(first, numel);
    };
  };
  for (Block& b : blocks_) {
    b.qkv_g = rows_of(b.qkv_c);
    b.o_g = rows_of(b.o_c);
    b.w13_g = rows_of(b.w13_c);
    b.w2_g = rows_of(b.w2_c);
    b.qkv_written = reporter(b.qkv_c);
    b.o_written = reporter(b.o_c);
    b.w13_written = reporter(b.w13_c);
    b.w2_written = reporter(b.w2_c);
  }
}

std::vector<FusedTransformerLM::GradientRows> FusedTransformerLM::gradient_rows() const {
  std::vector<const void*> written;  // the projections' masters, when backward writes their rows
  if (grad_buffer_.defined()) {
    for (const Block& b : blocks_) {
      for (const auto* group : {&b.qkv, &b.o, &b.w13, &b.w2}) {
        for (const auto& m : *group) written.push_back(m.data_ptr());
      }
    }
  }
  const auto params = parameters();
  std::vector<GradientRows> out;
  for (size_t i = 0; i < params.size(); ++i) {
    const bool mine = std::find(written.begin(), written.end(), params[i].data_ptr()) != written.end();
    out.push_back({offsets_[i], mine});
  }
  return out;
}

void FusedTransformerLM::attach_gradient_buffer() {
  if (!grad_buffer_.defined()) return;
  const auto attach = [](const std::vector<at::Tensor>& masters, const at::Tensor& rows) {
    int64_t first = 0;
    for (const auto& m : masters) {
      // A bf16/fp16 gradient of an fp32 leaf: set past autograd's type check, read only by
      // the fused optimizer (autograd never accumulates into it: backward gives it nothing).
      m.mutable_grad() = rows.narrow(0, first, m.size(0));
      first += m.size(0);
    }
  };
  for (const Block& b : blocks_) {
    attach(b.qkv, b.qkv_g);
    attach(b.o, b.o_g);
    attach(b.w13, b.w13_g);
    attach(b.w2, b.w2_g);
  }
}

void FusedTransformerLM::refresh_compute_copy() {
  if (compute_.data_ptr() == flat_.data_ptr()) return;
  torch::NoGradGuard no_grad;
  compute_.copy_(flat_);
}

void FusedTransformerLM::refresh_compute_copy_from_parameters(std::optional<int> stage) {
  const auto params = parameters();
  const auto* base = static_cast<const char*>(flat_.data_ptr());
  const auto in_flat = [&](size_t i) {
    return params[i].data_ptr() == base + offsets_[i] * static_cast<int64_t>(flat_.element_size());
  };
  bool all_in_flat = true;
  for (size_t i = 0; i < params.size() && all_in_flat; ++i) all_in_flat = in_flat(i);
  if (all_in_flat && !stage) return refresh_compute_copy();  // one copy, or none in fp32
  torch::NoGradGuard no_grad;
  at::Tensor target = compute_.variable_data();  // shares the storage, not the version counter
  const bool compute_is_flat = compute_.data_ptr() == flat_.data_ptr();
  for (size_t i = 0; i < params.size(); ++i) {
    if (stage && stages_[i] != *stage) continue;
    if (compute_is_flat && in_flat(i)) continue;  // the matmuls read the parameter itself
    target.narrow(0, offsets_[i], params[i].numel()).copy_(params[i].detach().reshape({-1}));
  }
}

at::Tensor FusedTransformerLM::loss(const at::Tensor& token_ids, const at::Tensor& targets) {
  using profiling::ScopedRange;
  TORCH_CHECK(token_ids.dim() == 2, "token ids must have shape (batch, seq), got ", token_ids.sizes());
  const int64_t seq = token_ids.size(1);
  TORCH_CHECK(seq <= rope_->context_length(), "sequence of ", seq, " tokens is longer than the model's context of ",
              rope_->context_length());
  const auto& cos = rope_->cos_table();
  const auto& sin = rope_->sin_table();
  // Backward reports the rows it writes only where there are rows and someone listens.
  const bool reporting = grad_buffer_.defined() && rows_listener_;
  const auto report = [&](const std::function<void()>& written) { return reporting ? &written : nullptr; };
  enter_stage(0);
  auto x = torch::embedding(embedding_, token_ids);  // fp32: the residual stream stays fp32
  int stage = 1;
  for (const Block& b : blocks_) {
    enter_stage(stage++);
    {
      ScopedRange range("attention");
      const auto qkv = fused::fused_linear(fused::rms_norm(x, b.ln1, kNormEps, compute_dtype_), b.qkv_c, b.qkv,
                                           b.qkv_g, report(b.qkv_written));
      x = x + fused::fused_linear(fused::rotary_attention(qkv, cos, sin, config_.num_heads), b.o_c, b.o, b.o_g,
                                  report(b.o_written));
    }
    ScopedRange range("feed-forward");
    const auto ab = fused::fused_linear(fused::rms_norm(x, b.ln2, kNormEps, compute_dtype_), b.w13_c, b.w13, b.w13_g,
                                        report(b.w13_written));
    x = x + fused::fused_linear(fused::swiglu(ab), b.w2_c, b.w2, b.w2_g, report(b.w2_written));
  }
  enter_stage(stage);
  ScopedRange range("lm head + loss");
  const auto normed = fused::rms_norm(x, ln_final_, kNormEps, compute_dtype_);
  return fused::linear_cross_entropy(normed.reshape({-1, config_.d_model}), lm_head_, lm_head_c_,
                                     targets.reshape({-1}));
}

std::vector<int> FusedTransformerLM::parameter_stages() const {
  return parameter_stages_by_name(*this, config_.num_layers);
}

}  // namespace stepscope
