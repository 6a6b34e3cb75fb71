#include <filesystem>
#include <iostream>

#include <torch/torch.h>

#include "attention/attend.h"
#include "attention/flash_attention.h"
#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/console_table.h"
#include "cli/option_reader.h"
#include "compat/torch_compat.h"
#include "experiments/attention/attention_schema.h"
#include "experiments/attention/attention_sweep.h"
#include "io/csv_writer.h"
#include "io/dtype_overflow.h"
#include "io/npy_file.h"
#include "io/run_record_json.h"
#include "io/table_csv.h"
#include "runners/device_backend.h"

namespace stepscope::cli {

namespace {

std::string attention_usage() {
  return "usage: stepscope-cli attention [options]\n"
         "       stepscope-cli attention check --q Q.npy --k K.npy --v V.npy [--do DO.npy] [--causal]\n"
         "                                     [--impl I] [--precision P] [--device D] --out DIR\n"
         "\n"
         "Times attention's forward and backward passes for every combination of the comma lists, and\n"
         "checks each implementation's O, dQ, dK and dV against naive attention in fp32 on the same inputs.\n"
         "\n"
         "  --impl I[,I...]        naive, sdpa (LibTorch 2.x), flash (default naive,flash, and sdpa where available)\n"
         "  --batch N              batch size (default 8)\n"
         "  --heads N              heads (default 1: inputs (batch, seq, d), as the seeds' sweep)\n"
         "  --d N[,N...]           head dim (default 16,32,64,128)\n"
         "  --seq N[,N...]         sequence length (default 256,1024,4096,8192,16384)\n"
         "  --precision P[,P...]   fp32, bf16 or fp16 inputs (default fp32)\n"
         "  --causal               top-left causal mask (query i sees keys 0..i)\n"
         "  --warmup N             warm-up passes, not measured (default 5)\n"
         "  --steps N              measured forward and backward passes (default 100)\n"
         "  --rounds N             split the passes into N rounds, the implementations of a shape taking\n"
         "                         turns round by round, so that a drift of the machine falls on all of them\n"
         "                         alike (default 5 when comparing implementations, else 1; at most --steps)\n"
         "  --device D             cpu, cuda or cuda:N (default cpu)\n"
         "  --seed N               seed of the inputs (default 0)\n"
         "  --csv F                write the table to F, rewritten after every row (default: stdout)\n"
         "  --json F               also write the run record (opens in the app with --open-file)\n"
         "  --quiet                no progress and no table on stderr\n"
         "\n"
         "check: runs one implementation on your float32/float64 .npy inputs of shape (batch, seq, d) or\n"
         "(batch, heads, seq, d) and writes o.npy and lse.npy (and dq.npy, dk.npy, dv.npy with --do), float32,\n"
         "into DIR. --impl picks what computes O and the gradients (default flash); lse.npy always comes from\n"
         "the flash forward pass (naive and sdpa do not return it). --precision rounds the inputs first.\n"
         "\n"
         "Exit status: 0 ok, 1 a configuration failed, 2 bad options, 130 interrupted.\n";
}

std::vector<AttentionImpl> default_impls() {
  std::vector<AttentionImpl> impls{AttentionImpl::naive};
  if (compat::has_scaled_dot_product_attention()) impls.push_back(AttentionImpl::sdpa);
  impls.push_back(AttentionImpl::flash);
  return impls;
}

struct SweepOptions {
  AttentionSweepSpec spec;
  std::string csv, json;
  bool quiet = false;
};

SweepOptions parse_sweep_options(const std::vector<std::string>& args) {
  const OptionReader options("attention", args,
                             {"impl", "batch", "heads", "d", "seq", "precision", "warmup", "steps", "rounds", "device",
                              "seed", "csv", "json"},
                             {"causal", "quiet", "help"});
  SweepOptions o;
  AttentionConfig& base = o.spec.base;
  o.spec.impls.clear();
  if (options.has("impl")) {
    for (const auto& text : split_list("impl", options.get("impl"))) {
      o.spec.impls.push_back(parse_with("impl", text, parse_attention_impl));
    }
  } else {
    o.spec.impls = default_impls();
  }
  base.batch = parse_integer("batch", options.get("batch", "8"), 1);
  base.heads = parse_integer("heads", options.get("heads", "1"), 1);
  if (options.has("d")) o.spec.head_dims = parse_integer_list("d", options.get("d"));
  if (options.has("seq")) o.spec.seqs = parse_integer_list("seq", options.get("seq"));
  o.spec.precisions.clear();
  for (const auto& text : split_list("precision", options.get("precision", "fp32"))) {
    o.spec.precisions.push_back(parse_with("precision", text, parse_precision));
  }
  base.causal = options.has("causal");
  // Checked before narrowing to int: 4294967297 passes must not become 1.
  constexpr int64_t kMaxPasses = 1000000;
  const auto passes = [&](const char* option, const char* fallback, int64_t minimum) {
    const int64_t n = parse_integer(option, options.get(option, fallback), minimum);
    if (n > kMaxPasses) throw CliError(std::string("--") + option + ": at most 1000000");
    return static_cast<int>(n);
  };
  base.warmup_steps = passes("warmup", "5", 0);
  base.measured_steps = passes("steps", "100", 1);
  if (options.has("rounds")) o.spec.rounds = passes("rounds", "1", 1);
  base.device = options.get("device", "cpu");
  base.seed = static_cast<uint64_t>(parse_integer("seed", options.get("seed", "0"), 0));
  o.csv = options.get("csv");
  if (o.csv == "-") o.csv.clear();
  o.json = options.get("json");
  o.quiet = options.has("quiet");
  return o;
}

// A ConfigError names its field; the option of the same name is what the user typed.
CliError option_error(const ConfigError& error) {
  const std::string field = error.field().empty() ? "" : "--" + error.field() + ": ";
  return CliError(field + error.what());
}

int run_sweep_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  SweepOptions options;
  std::vector<AttentionConfig> configs;
  try {
    options = parse_sweep_options(args);
    configs = expand(options.spec);
    try {
      validate_rounds(options.spec);
      for (const auto& c : configs) check_runnable(c);
    } catch (const ConfigError& e) {
      throw option_error(e);
    }
    check_outputs({{"--csv", options.csv.empty() ? "-" : options.csv}, {"--json", options.json}});
  } catch (const CliError& error) {
    err << "stepscope-cli attention: error: " << error.what() << '\n';
    return kExitUsage;
  }
  const RunEnvironment environment = command_environment("attention", args);
  const auto& schema = attention_schema();
  const auto columns = schema.columns();
  std::vector<AttentionResult> results;
  CsvWriter stdout_csv(out);
  if (options.csv.empty()) stdout_csv.write_row(csv_header(columns));
  const bool csv_each_row = !options.csv.empty() && is_rewritable_output(options.csv);
  const bool json_each_row = !options.json.empty() && is_rewritable_output(options.json);
  const auto write_csv = [&] {
    replace_file(options.csv, [&](std::ostream& f) { write_table_csv(f, schema.table(results)); });
  };
  const auto write_json = [&] {
    const RunRecord record{environment, {}, {schema.table(results)}};
    replace_file(options.json, [&](std::ostream& f) { f << write_run_record(record); });
  };
  const auto publish = [&](const AttentionResult& result) {
    results.push_back(result);
    if (options.csv.empty()) {
      stdout_csv.write_row(csv_row(columns, schema.values(result)));
      out.flush();
    }
    if (csv_each_row) write_csv();
    if (json_each_row) write_json();
  };
  StderrProgress progress(err);
  try {
    run_attention_sweep(configs, sweep_rounds(options.spec), options.quiet ? nullptr : &progress, &interrupt_flag(),
                        publish);
    if (!options.csv.empty() && !csv_each_row) write_csv();
    if (!options.json.empty() && !json_each_row) write_json();
  } catch (const std::exception& error) {
    err << "stepscope-cli attention: error: " << compat::error_message(error) << '\n';
    return kExitFailure;
  }
  if (!options.quiet) print_table(err, schema.table(results));
  if (interrupt_flag().is_cancelled()) {
    err << "stepscope-cli attention: interrupted; " << results.size() << " of " << configs.size()
        << " configuration(s) written\n";
    return kExitInterrupted;
  }
  for (const auto& r : results) {
    if (r.status == RunStatus::failed) return kExitFailure;
  }
  return kExitOk;
}

// --- attention check ---

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
  std::string device;
  bool causal = false;
  try {
    const OptionReader options("attention check", args, {"q", "k", "v", "do", "impl", "precision", "device", "out"},
                               {"causal", "help"});
    if (options.has("help")) {
      out << attention_usage();
      return kExitOk;
    }
    for (const char* required : {"q", "k", "v", "out"}) {
      if (!options.has(required)) throw CliError(std::string("--") + required + " is required");
    }
    impl = parse_with("impl", options.get("impl", "flash"), parse_attention_impl);
    precision = parse_with("precision", options.get("precision", "fp32"), parse_precision);
    device = options.get("device", "cpu");
    causal = options.has("causal");
    dir = options.get("out");
    try {
      check_device(device);  // before .to(device): LibTorch's own error would end the process
    } catch (const ConfigError& e) {
      throw option_error(e);
    }
    // The gradients are written only with --do; an input may sit where they would have gone.
    std::vector<std::pair<std::string, std::string>> outputs;
    for (const char* name : {"o", "lse", "dq", "dk", "dv"}) {
      if (!options.has("do") && name[0] == 'd') continue;
      outputs.push_back({"--out", (dir / (std::string(name) + ".npy")).string()});
    }
    std::vector<std::pair<std::string, std::string>> inputs;
    for (const char* name : {"q", "k", "v", "do"}) inputs.push_back({std::string("--") + name, options.get(name)});
    std::error_code ignored;
    std::filesystem::create_directories(dir, ignored);
    check_outputs(outputs, inputs);
    q = read_input("q", options.get("q"));
    k = read_input("k", options.get("k"));
    v = read_input("v", options.get("v"));
    if (options.has("do")) d_o = read_input("do", options.get("do"));
    if (d_o.defined() && d_o.sizes() != q.sizes()) throw CliError("--do must have q's shape");
    try {
      const auto dtype = precision == Precision::fp32   ? torch::kFloat32
                         : precision == Precision::bf16 ? torch::kBFloat16
                                                        : torch::kFloat16;
      // Rounded to the run's precision: a value that becomes inf would make every output NaN.
      const auto to_run = [&](const char* option, const at::Tensor& t) {
        if (const auto value = first_overflow(t, dtype)) {
          throw CliError(std::string("--") + option + ": " + options.get(option) + " holds " +
                         overflow_text(*value, dtype) + " (--precision " + to_string(precision) + ")");
        }
        return t.to(torch::Device(device), dtype);
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
  if (!args.empty() && (args.front() == "--help" || args.front() == "-h" || args.front() == "help")) {
    out << attention_usage();
    return kExitOk;
  }
  if (!args.empty() && args.front() == "check") {
    return run_check_subcommand({args.begin() + 1, args.end()}, out, err);
  }
  for (const auto& a : args) {
    if (a == "--help") {
      out << attention_usage();
      return kExitOk;
    }
  }
  return run_sweep_command(args, out, err);
}

}  // namespace stepscope::cli
