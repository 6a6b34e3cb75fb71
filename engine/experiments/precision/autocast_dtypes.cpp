#include "experiments/precision/autocast_dtypes.h"

#include <memory>

#include <torch/torch.h>

#include "core/config_error.h"
#include "compat/torch_compat.h"
#include "experiments/precision/accumulation.h"
#include "model/loss.h"

namespace stepscope::precision {

std::string to_string(AutocastModel model) { return model == AutocastModel::toy ? "toy" : "transformer"; }

namespace {

using torch::Tensor;

// Keeps each module's output under "<module> output" and remembers which module runs, so
// a failure under autocast can name it.
class OutputTrace {
 public:
  template <typename Call>
  Tensor record(std::string module, Call&& call) {
    running_ = std::move(module);
    Tensor output = call();
    outputs_.push_back({running_ + " output", output});
    return output;
  }
  const std::string& running() const { return running_; }
  const std::vector<NamedTensor>& outputs() const { return outputs_; }
  std::vector<NamedTensor> take() { return std::move(outputs_); }

 private:
  std::string running_;
  std::vector<NamedTensor> outputs_;
};

void toy_outputs(ToyModel& model, const Tensor& x, OutputTrace& trace) {
  auto h = trace.record("fc1", [&] { return model->fc1(x); });
  h = trace.record("relu", [&] { return model->relu(h); });
  h = trace.record("ln", [&] { return model->ln(h); });
  trace.record("fc2", [&] { return model->fc2(h); });
}

// TransformerLMImpl::forward and TransformerBlockImpl::forward, op for op.
void transformer_outputs(TransformerLM& model, RotaryEmbedding& rope, const Tensor& token_ids, OutputTrace& trace) {
  TORCH_CHECK(token_ids.dim() == 2, "token ids must have shape (batch, seq), got ", token_ids.sizes());
  const int64_t seq = token_ids.size(1);
  const auto future_mask =
      torch::ones({seq, seq}, torch::TensorOptions().dtype(torch::kBool).device(token_ids.device())).triu(1);
  auto x = trace.record("token_embeddings", [&] { return model->token_embeddings(token_ids); });
  for (size_t i = 0; i < model->layers->size(); ++i) {
    auto* block = model->layers[i]->as<TransformerBlock>();
    const std::string name = "layers." + std::to_string(i);
    const auto normed = trace.record(name + ".ln1", [&] { return block->ln1(x); });
    const auto attended = trace.record(name + ".attn", [&] { return block->attn->forward(normed, rope, future_mask); });
    const auto h = x + attended;
    const auto normed2 = trace.record(name + ".ln2", [&] { return block->ln2(h); });
    const auto fed = trace.record(name + ".ffn", [&] { return block->ffn(normed2); });
    x = trace.record(name, [&] { return h + fed; });
  }
  x = trace.record("ln_final", [&] { return model->ln_final(x); });
  trace.record("lm_head", [&] { return model->lm_head(x); });
}

// The model keeps its rotary tables private; these are the same tables, built the same way.
RotaryEmbedding rotary_tables(const TransformerLM& model) {
  const auto& c = model->config();
  return RotaryEmbedding(c.context_length, c.d_head(), c.rope_theta,
                         torch::TensorOptions().device(model->lm_head->weight.device()));
}

void check(const AutocastSpec& spec) {
  if (spec.dtype != c10::kHalf && spec.dtype != c10::kBFloat16) {
    throw ConfigError("autocast runs in float16 or bfloat16, not " + dtype_name(spec.dtype), "precision");
  }
  const auto type = spec.device.type();
  if (type == c10::DeviceType::CUDA) {
    const int count = compat::cuda_device_count();
    if (count == 0) {
      throw ConfigError(std::string("no CUDA device is available") +
                        (compat::built_with_cuda() ? "" : " (this LibTorch is built without CUDA)"),
                        "device");
    }
    if (spec.device.has_index() && spec.device.index() >= count) {
      throw ConfigError("there is no " + spec.device.str() + " (" + std::to_string(count) + " CUDA devices)", "device");
    }
  }
  if (!compat::autocast_supported(type, spec.dtype)) {
    std::string supported;
    for (const auto dtype : {c10::kBFloat16, c10::kHalf}) {
      if (compat::autocast_supported(type, dtype)) supported += (supported.empty() ? "" : ", ") + dtype_name(dtype);
    }
    throw ConfigError("LibTorch " + compat::libtorch_version() + " has no " + dtype_name(spec.dtype) +
                      " autocast on " + c10::DeviceTypeName(type, /*lower_case=*/true) +
                      (supported.empty() ? std::string() : " (it autocasts to " + supported + " there)"),
                      "precision");
  }
  if (spec.batch < 1) throw ConfigError("batch must be positive (got " + std::to_string(spec.batch) + ")", "batch");
  if (spec.model == AutocastModel::transformer) {
    validate(spec.transformer);
    if (spec.context < 1 || spec.context > spec.transformer.context_length) {
      throw ConfigError("context must be between 1 and the model's context length " +
                        std::to_string(spec.transformer.context_length) + " (got " + std::to_string(spec.context) +
                            ")",
                        "context");
    }
  }
}

struct ForwardPass {
  std::shared_ptr<torch::nn::Module> model;
  std::vector<TensorDtype> parameters;  // read inside the autocast region
  std::vector<NamedTensor> outputs;
  Tensor loss;
};

std::vector<TensorDtype> parameter_rows(const torch::nn::Module& model) {
  std::vector<TensorDtype> rows;
  for (const auto& p : model.named_parameters()) {
    rows.push_back({p.key(), TensorKind::parameter, dtype_name(p.value().scalar_type())});
  }
  return rows;
}

// Autocast leaves ops off its lists to run in their inputs' dtypes, and a kernel may refuse the
// mix it then gets (LibTorch 1.13's CPU LayerNorm with a bfloat16 input and float32 weights):
// say which module it was and what came before it, not only the kernel's complaint.
[[noreturn]] void throw_module_failure(const AutocastSpec& spec, const OutputTrace& trace, const c10::Error& error) {
  std::string before;
  for (const auto& output : trace.outputs()) {
    before += (before.empty() ? "" : ", ") + output.name + " " + dtype_name(output.value.scalar_type());
  }
  throw ConfigError(trace.running() + " fails under " + dtype_name(spec.dtype) + " autocast on " +
                    c10::DeviceTypeName(spec.device.type(), /*lower_case=*/true) + " with LibTorch " +
                    compat::libtorch_version() + ": " + error.what_without_backtrace() +
                    (before.empty() ? std::string() : " (after " + before + ")"));
}

// One forward pass and its loss inside the autocast region (backward runs after it, outside):
// `outputs` runs the model's modules into the trace, `loss` takes the last output.
template <class Outputs, class Loss>
ForwardPass traced_forward(const AutocastSpec& spec, std::shared_ptr<torch::nn::Module> model, Outputs outputs,
                           Loss loss) {
  ForwardPass pass;
  pass.model = std::move(model);
  compat::AutocastGuard autocast(spec.device.type(), spec.dtype);
  pass.parameters = parameter_rows(*pass.model);
  OutputTrace trace;
  try {
    outputs(trace);
  } catch (const c10::Error& error) {
    throw_module_failure(spec, trace, error);
  }
  pass.outputs = trace.take();
  pass.loss = loss(pass.outputs.back().value);
  return pass;
}

ForwardPass toy_forward(const AutocastSpec& spec) {
  ToyModel model;
  model->to(spec.device);
  const auto x = torch::randn({spec.batch, kToyInFeatures}).to(spec.device);
  const auto targets = torch::randint(kToyOutFeatures, {spec.batch}, torch::kLong).to(spec.device);
  return traced_forward(
      spec, model.ptr(), [&](OutputTrace& trace) { toy_outputs(model, x, trace); },
      [&](const Tensor& logits) { return torch::nn::functional::cross_entropy(logits, targets); });
}

ForwardPass transformer_forward(const AutocastSpec& spec) {
  TransformerLM model(spec.transformer, torch::TensorOptions().device(spec.device));
  auto rope = rotary_tables(model);
  const auto vocab = spec.transformer.vocab_size;
  const auto tokens = torch::randint(vocab, {spec.batch, spec.context}, torch::kLong).to(spec.device);
  const auto targets = torch::randint(vocab, {spec.batch, spec.context}, torch::kLong).to(spec.device);
  return traced_forward(
      spec, model.ptr(), [&](OutputTrace& trace) { transformer_outputs(model, rope, tokens, trace); },
      [&](const Tensor& logits) { return mean_cross_entropy(logits, targets); });
}

}  // namespace

std::vector<NamedTensor> toy_module_outputs(ToyModel& model, const torch::Tensor& x) {
  OutputTrace trace;
  toy_outputs(model, x, trace);
  return trace.take();
}

std::vector<NamedTensor> transformer_module_outputs(TransformerLM& model, const torch::Tensor& token_ids) {
  auto rope = rotary_tables(model);
  OutputTrace trace;
  transformer_outputs(model, rope, token_ids, trace);
  return trace.take();
}

std::vector<TensorDtype> autocast_dtypes(const AutocastSpec& spec) {
  check(spec);
  torch::manual_seed(spec.seed);
  const ForwardPass pass = spec.model == AutocastModel::toy ? toy_forward(spec) : transformer_forward(spec);
  pass.loss.backward();

  std::vector<TensorDtype> rows = pass.parameters;
  for (const auto& output : pass.outputs) {
    rows.push_back({output.name, TensorKind::activation, dtype_name(output.value.scalar_type())});
  }
  rows.push_back({"logits", TensorKind::logits, dtype_name(pass.outputs.back().value.scalar_type())});
  rows.push_back({"loss", TensorKind::loss, dtype_name(pass.loss.scalar_type())});
  for (const auto& p : pass.model->named_parameters()) {
    const auto& grad = p.value().grad();
    rows.push_back({p.key() + ".grad", TensorKind::gradient, grad.defined() ? dtype_name(grad.scalar_type()) : "none"});
  }
  return rows;
}

}  // namespace stepscope::precision
