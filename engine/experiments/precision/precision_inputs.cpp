#include "experiments/precision/precision_inputs.h"

#include "experiments/common_inputs.h"

namespace stepscope::precision {

namespace {

using schema::InputField;
using schema::InputKind;

schema::InputSchema make_autocast_inputs() {
  std::vector<InputField> f;
  InputField model = model_input("toy (the handout's ToyModel) or a Transformer preset (tiny, small, ...)", "toy",
                                 false);
  model.choices.insert(model.choices.begin(), "toy");
  model.check = [](const std::string& t) {
    if (t != "toy") model_preset(t);
  };
  f.push_back(model);
  f.push_back(precision_input("precision", "Precision", "bf16 or fp16", "bf16", false, {"bf16", "fp16"},
                              "autocast lowers to bf16 or fp16; fp32 has nothing to show"));
  f.push_back(device_input("cpu, cuda or cuda:N (LibTorch 1.13 autocasts to bf16 only on the CPU)"));
  f.push_back({"batch", "Batch", InputKind::integer, "batch size", "4", false, "run", "N"});
  f.push_back({"context", "Context", InputKind::integer, "tokens per sequence for a Transformer", "16", false, "run",
               "N"});
  f.push_back(seed_input("seed of the weights and inputs"));
  return {f};
}

}  // namespace

const schema::InputSchema& accumulate_inputs() {
  static const schema::InputSchema inputs{};
  return inputs;
}

const schema::InputSchema& autocast_inputs() {
  static const schema::InputSchema inputs = make_autocast_inputs();
  return inputs;
}

AutocastRequest autocast_request(const schema::InputValues& v) {
  AutocastRequest request;
  request.model = v.text("model");
  request.precision = parse_precision(v.text("precision"));
  request.device = parse_device(v.text("device"));
  request.batch = v.integer("batch");
  request.context = v.integer("context");
  request.seed = static_cast<uint64_t>(v.integer("seed"));
  return request;
}

schema::InputValues autocast_values(const AutocastRequest& r) {
  schema::InputValues v(autocast_inputs());
  v.set("model", r.model);
  v.set("precision", to_string(r.precision));
  v.set("device", to_string(r.device));
  v.set("batch", std::to_string(r.batch));
  v.set("context", std::to_string(r.context));
  v.set("seed", std::to_string(r.seed));
  return v;
}

}  // namespace stepscope::precision
