#include "experiments/common_inputs.h"

#include "core/config_error.h"
#include "core/device.h"
#include "distributed/launch_env.h"
#include "distributed/worker_launcher.h"
#include "core/precision.h"
#include "model/model_config.h"

namespace stepscope {

using schema::InputField;
using schema::InputKind;

InputField device_input(const std::string& help) {
  InputField f{"device", "Device", InputKind::text, help, "cpu", false, "run", "D"};
  f.check = [](const std::string& t) { parse_device(t); };
  return f;
}

InputField seed_input(const std::string& help) {
  InputField f{"seed", "Seed", InputKind::integer, help, "0", false, "run", "N"};
  f.min_integer = 0;
  return f;
}

InputField precision_input(const std::string& key, const std::string& label, const std::string& help,
                           const std::string& default_text, bool list, std::vector<std::string> choices,
                           const std::string& refusal) {
  InputField f{key, label, InputKind::choice, help, default_text, list, "run", "P"};
  f.choices = std::move(choices);
  const auto allowed = f.choices;
  f.check = [allowed, refusal](const std::string& t) {
    parse_precision(t);
    for (const auto& c : allowed) {
      if (c == t) return;
    }
    throw ConfigError(refusal);
  };
  return f;
}

InputField warmup_input(const std::string& key, const std::string& label, const std::string& help,
                        const std::string& default_text) {
  InputField f{key, label, InputKind::integer, help, default_text, false, "run", "N"};
  f.min_integer = 0;
  f.max_integer = kMaxSteps;
  return f;
}

InputField measured_input(const std::string& key, const std::string& label, const std::string& help,
                          const std::string& default_text) {
  InputField f{key, label, InputKind::integer, help, default_text, false, "run", "N"};
  f.max_integer = kMaxSteps;
  return f;
}

InputField model_input(const std::string& help, const std::string& default_text, bool list) {
  InputField f{"model", "Model", InputKind::choice, help, default_text, list, "model", "NAME"};
  f.choices = model_preset_names();
  f.check = [](const std::string& t) { model_preset(t); };
  return f;
}

InputField cuda_graphs_input() {
  InputField f{"cuda-graphs", "CUDA graphs", InputKind::choice,
               "fused on a GPU: capture the step as CUDA graphs in warm-up and replay them (on), or\n"
               "launch every kernel (off)",
               "on", false, "run", "on|off"};
  f.choices = {"on", "off"};
  return f;
}

InputField nproc_input() {
  InputField f{"nproc", "Ranks", InputKind::integer, "local workers, one run per value", "2", true, "launch", "N"};
  f.max_integer = distributed::kMaxRanks;
  return f;
}

InputField backend_input() {
  InputField f{"backend", "Backend", InputKind::choice, "gloo (CPU tensors) or nccl (GPUs)", "", false, "launch", "B"};
  f.choices = {"gloo", "nccl"};
  f.check = [](const std::string& t) { parse_comm_backend(t); };
  f.default_note = "gloo, nccl with --device cuda";
  return f;
}

InputField rank_device_input() {
  InputField f{"device", "Device", InputKind::choice, "cpu or cuda (each rank on GPU LOCAL_RANK)", "cpu", false,
               "launch", "D"};
  f.choices = {"cpu", "cuda"};
  f.check = [](const std::string& t) {
    if (t != "cpu" && t != "cuda") throw ConfigError("use cpu or cuda (got '" + t + "')");
  };
  return f;
}

InputField timeout_input() {
  InputField f{"timeout", "Timeout (s)", InputKind::integer, "seconds the ranks may take to meet, and each collective",
               "60", false, "launch", "S"};
  f.max_integer = 604800;  // a week: an int, and past any real job
  f.unit = "s";
  return f;
}

CommBackend backend_of(const std::string& backend_text, const Device& device) {
  if (!backend_text.empty()) return parse_comm_backend(backend_text);
  return device.is_cuda() ? CommBackend::nccl : CommBackend::gloo;
}

void check_local_ranks(const schema::InputValues& values) {
  for (int64_t n : values.integers("nproc")) {
    if (n < 1 || n > distributed::kMaxLocalWorkers) {
      throw ConfigError("ranks: " + std::to_string(n) + " is more local workers than one machine starts (1 to " +
                            std::to_string(distributed::kMaxLocalWorkers) + ")",
                        "nproc");
    }
  }
}

}  // namespace stepscope
