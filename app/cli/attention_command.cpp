#include <filesystem>
#include <iostream>

#include <torch/torch.h>

#include "core/config_error.h"
#include "attention/attend.h"
#include "attention/flash_attention.h"
#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/experiment_command.h"
#include "compat/torch_compat.h"
#include "experiments/common_inputs.h"
#include "registry/experiment_registry.h"
#include "io/dtype_overflow.h"
#include "io/npy_file.h"
#include "runners/device_backend.h"
#include "schema/input_arguments.h"

namespace stepscope::cli {

namespace {

// --- attention check ---

const schema::InputSchema& check_inputs() {
  static const schema::InputSchema inputs = [] {
    using schema::InputKind;
    std::vector<schema::InputField> f;
    for (const char* key : {"q", "k", "v"}) {
      f.push_back({key, key, InputKind::path, "float32/float64 .npy of shape (batch, seq, d) or (batch, heads, seq, d)",
                   "", false, "run", "F.npy"});
      f.back().required = true;
    }
    f.push_back({"do", "dO", InputKind::path, "the output's gradient: also writes dq, dk and dv", "", false, "run",
                 "DO.npy"});
    f.push_back({"impl", "Implementation", InputKind::choice, "naive, sdpa or flash", "flash", false, "run", "I"});
    f.back().choices = {"naive", "sdpa", "flash"};
    f.back().check = [](const std::string& t) { parse_attention_impl(t); };
    f.push_back(precision_input("precision", "Precision", "rounds the inputs first", "fp32", false));
    f.push_back(device_input());
    f.push_back({"causal", "Causal", InputKind::flag, "top-left causal mask", "", false, "run", ""});
    f.push_back({"out", "Output folder", InputKind::path, "where o.npy and lse.npy go", "", false, "output", "DIR"});
    f.back().required = true;
    return schema::InputSchema{f};
  }();
  return inputs;
}

// A ConfigError names its field; the option of the same name is what the user typed.
CliError option_error(const ConfigError& error) {
  const std::string field = error.field().empty() ? "" : "--" + error.field() + ": ";
  return CliError(field + error.what());
}

at::Tensor read_input(const std::string& option, const std::string& path) {
  at::Tensor t;
  try {
    t = read_npy_file(path);
  } catch (const std::exception& e) {
    throw CliError("--" + option + ": " + compat::error_message(e));
  }
  if (t.scalar_type() != torch::kFloat32 && t.scalar_type() != torch::kFloat64) {
    throw CliError("--" + option + ": " + path + " holds " + std::string(c10::toString(t.scalar_type())) +
                   "; attention check reads float32 or float64");
  }
  if (t.dim() != 3 && t.dim() != 4) {
    throw CliError("--" + option + ": " + path + " has " + std::to_string(t.dim()) +
                   " dimensions; use (batch, seq, d) or (batch, heads, seq, d)");
  }
  if (t.numel() == 0) throw CliError("--" + option + ": " + path + " is empty");
  return t;
}

void write_output(const at::Tensor& t, const std::filesystem::path& path) {
  write_npy_file(t.detach().to(torch::kCPU, torch::kFloat32).contiguous(), path.string());
}

int run_check_subcommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  at::Tensor q, k, v, d_o;
  std::filesystem::path dir;
  AttentionImpl impl = AttentionImpl::flash;
  Precision precision = Precision::fp32;
  Device device;
  bool causal = false;
  try {
    schema::ParsedArguments parsed{schema::InputValues(check_inputs()), false};
    try {
      parsed = schema::parse_arguments(check_inputs(), "attention check", args);
    } catch (const ConfigError& e) {
      throw CliError(e.what());
    }
    if (parsed.help) {
      out << experiment_usage(*find_experiment("attention"));
      return kExitOk;
    }
    const schema::InputValues& options = parsed.values;
    impl = parse_attention_impl(options.text("impl"));
    precision = parse_precision(options.text("precision"));
    causal = options.flag("causal");
    dir = options.text("out");
    try {
      device = parse_device(options.text("device"));
      check_device(device);  // before .to(device): LibTorch's own error would end the process
    } catch (const ConfigError& e) {
      throw option_error(e);
    }
    // The gradients are written only with --do; an input may sit where they would have gone.
    std::vector<std::pair<std::string, std::string>> outputs;
    for (const char* name : {"o", "lse", "dq", "dk", "dv"}) {
      if (!options.given("do") && name[0] == 'd') continue;
      outputs.push_back({"--out", (dir / (std::string(name) + ".npy")).string()});
    }
    std::vector<std::pair<std::string, std::string>> inputs;
    for (const char* name : {"q", "k", "v", "do"}) inputs.push_back({std::string("--") + name, options.text(name)});
    std::error_code ignored;
    std::filesystem::create_directories(dir, ignored);
    check_outputs(outputs, inputs);
    q = read_input("q", options.text("q"));
    k = read_input("k", options.text("k"));
    v = read_input("v", options.text("v"));
    if (options.given("do")) d_o = read_input("do", options.text("do"));
    if (d_o.defined() && d_o.sizes() != q.sizes()) throw CliError("--do must have q's shape");
    try {
      const auto dtype = precision == Precision::fp32   ? torch::kFloat32
                         : precision == Precision::bf16 ? torch::kBFloat16
                                                        : torch::kFloat16;
      // Rounded to the run's precision: a value that becomes inf would make every output NaN.
      const auto to_run = [&](const char* option, const at::Tensor& t) {
        if (const auto value = first_overflow(t, dtype)) {
          throw CliError(std::string("--") + option + ": " + options.text(option) + " holds " +
                         overflow_text(*value, dtype) + " (--precision " + to_string(precision) + ")");
        }
        return t.to(torch_device(device), dtype);
      };
      q = to_run("q", q), k = to_run("k", k), v = to_run("v", v);
      if (d_o.defined()) d_o = to_run("do", d_o);
      check_flash_inputs(q, k, v);
      check_attention_impl(impl, device, q.size(-1), q.size(-2), k.size(-2));
    } catch (const ConfigError& e) {
      throw option_error(e);
    }
  } catch (const CliError& error) {
    err << "stepscope-cli attention check: error: " << error.what() << '\n';
    return kExitUsage;
  } catch (const std::exception& error) {  // never an abort: LibTorch's errors are std::exceptions too
    err << "stepscope-cli attention check: error: " << compat::error_message(error) << '\n';
    return kExitFailure;
  }
  try {
    const auto leaf = [](const at::Tensor& t) { return t.detach().requires_grad_(true); };
    // lse comes from the flash passes whatever the implementation: only they compute it.
    const FlashForwardResult flash = flash_forward(q, k, v, causal);
    write_output(flash.lse, dir / "lse.npy");
    auto ql = leaf(q), kl = leaf(k), vl = leaf(v);
    const at::Tensor o = attend(impl, ql, kl, vl, causal);
    write_output(o, dir / "o.npy");
    if (d_o.defined()) {
      o.backward(d_o);
      write_output(ql.grad(), dir / "dq.npy");
      write_output(kl.grad(), dir / "dk.npy");
      write_output(vl.grad(), dir / "dv.npy");
    }
  } catch (const std::exception& error) {
    err << "stepscope-cli attention check: error: " << compat::error_message(error) << '\n';
    return kExitFailure;
  }
  err << "wrote " << (d_o.defined() ? "o, lse, dq, dk and dv" : "o and lse") << " to " << dir.string() << '\n';
  return kExitOk;
}

}  // namespace

int run_attention_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const ExperimentDescriptor& sweep = *find_experiment("attention");
  if (!args.empty() && args.front() == "help") {
    out << experiment_usage(sweep);
    return kExitOk;
  }
  if (!args.empty() && args.front() == "check") {
    return run_check_subcommand({args.begin() + 1, args.end()}, out, err);
  }
  return run_experiment_command(sweep, args, out, err);
}

}  // namespace stepscope::cli
