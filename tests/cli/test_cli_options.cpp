#include <gtest/gtest.h>

#include "cli/cli_options.h"

namespace stepscope::cli {
namespace {

using Args = std::vector<std::string>;

std::string error_of(const Args& args) {
  try {
    parse_bench_options(args);
  } catch (const CliError& error) {
    return error.what();
  }
  return "<no error>";
}

TEST(BenchOptions, DefaultsFollowTheHandout) {
  const auto o = parse_bench_options({});
  ASSERT_EQ(o.spec.models.size(), 1u);
  EXPECT_EQ(o.spec.models[0].name, "small");
  EXPECT_EQ(o.spec.contexts, std::vector<int64_t>{256});
  EXPECT_EQ(o.spec.batches, std::vector<int64_t>{4});
  EXPECT_EQ(o.spec.base.warmup_steps, 5);
  EXPECT_EQ(o.spec.base.measured_steps, 10);
  EXPECT_EQ(o.spec.base.device, Device{});
  EXPECT_EQ(o.spec.precisions, std::vector<Precision>{Precision::fp32});
  EXPECT_EQ(o.spec.modes, std::vector<StepMode>{StepMode::train});
}

TEST(BenchOptions, CommaListsMakeASweep) {
  const auto o = parse_bench_options({"--model", "small,xl", "--context=128,256", "--precision", "fp32,bf16", "--mode",
                                      "forward,forward-backward,train", "--warmup", "0", "--steps", "3", "--device",
                                      "cuda:1", "--csv", "out.csv", "--json", "out.json", "--quiet"});
  EXPECT_EQ(o.spec.models.size(), 2u);
  EXPECT_EQ(o.spec.models[1].name, "xl");
  EXPECT_EQ(o.spec.contexts, (std::vector<int64_t>{128, 256}));
  EXPECT_EQ(o.spec.precisions.size(), 2u);
  EXPECT_EQ(o.spec.modes.size(), 3u);
  EXPECT_EQ(o.spec.base.warmup_steps, 0);
  EXPECT_EQ(o.spec.base.device, (Device{DeviceKind::cuda, 1}));
  EXPECT_EQ(o.csv_path, "out.csv");
  EXPECT_EQ(o.json_path, "out.json");
  EXPECT_TRUE(o.quiet);
  EXPECT_EQ(expand(o.spec).size(), 2u * 2 * 2 * 3);
}

TEST(BenchOptions, CustomModel) {
  const auto o = parse_bench_options({"--d-model", "128", "--layers", "3", "--heads", "4", "--vocab", "500"});
  const auto& m = o.spec.models.at(0);
  EXPECT_EQ(m.name, "custom");
  EXPECT_EQ(m.d_model, 128);
  EXPECT_EQ(m.d_ff, 512);
  EXPECT_EQ(m.num_layers, 3);
  EXPECT_EQ(m.vocab_size, 500);
}

TEST(BenchOptions, EveryMistakeNamesTheProblem) {
  EXPECT_EQ(error_of({"--frob"}), "unknown option '--frob' for 'bench' (see stepscope-cli bench --help)");
  EXPECT_EQ(error_of({"--context"}), "option --context needs a value");
  EXPECT_EQ(error_of({"--context", "--steps", "3"}), "option --context needs a value");
  EXPECT_EQ(error_of({"--context", "12x"}), "--context: '12x' is not an integer");
  EXPECT_EQ(error_of({"--batch", "0"}), "--batch: 0 is too small (at least 1)");
  EXPECT_EQ(error_of({"--steps", "0"}), "--steps: 0 is too small (at least 1)");
  EXPECT_EQ(error_of({"--steps", "99999999999999999999"}), "--steps: '99999999999999999999' is not an integer");
  EXPECT_EQ(error_of({"--context", "1,,2"}), "--context: empty item in list '1,,2'");
  EXPECT_EQ(error_of({"--context", "1,"}), "--context: empty item in list '1,'");
  EXPECT_EQ(error_of({"--context", ""}), "option --context has an empty value");
  EXPECT_EQ(error_of({"--steps", "3", "--steps", "4"}), "option --steps is given twice");
  EXPECT_EQ(error_of({"extra"}), "unexpected argument 'extra' for 'bench' (options start with --)");
  EXPECT_EQ(error_of({"--quiet=yes"}), "option --quiet takes no value");
  EXPECT_NE(error_of({"--model", "huge"}).find("--model: unknown model 'huge'"), std::string::npos);
  EXPECT_NE(error_of({"--precision", "fp8"}).find("unknown precision 'fp8'"), std::string::npos);
  EXPECT_NE(error_of({"--mode", "infer"}).find("unknown mode 'infer'"), std::string::npos);
  EXPECT_NE(error_of({"--device", "gpu0"}).find("unknown device 'gpu0'"), std::string::npos);
  EXPECT_NE(error_of({"--d-model", "100", "--layers", "2", "--heads", "3"}).find("not divisible"), std::string::npos);
  EXPECT_NE(error_of({"--d-model", "64"}).find("a custom model needs --layers"), std::string::npos);
  EXPECT_NE(error_of({"--model", "tiny", "--heads", "2"}).find("cannot be combined"), std::string::npos);
  EXPECT_NE(error_of({"--peak-tflops", "-3"}).find("not a positive number"), std::string::npos);
}

TEST(BenchOptions, ProfileKernelsAndWhereItsFilesGo) {
  const auto o = parse_bench_options({"--model", "tiny", "--profile", "kernels", "--short-names", "--csv",
                                      "out/run.csv", "--precision", "bf16", "--mode", "forward"});
  EXPECT_TRUE(o.spec.base.profile_kernels);
  EXPECT_TRUE(o.short_kernel_names);
  const auto configs = expand(o.spec);
  ASSERT_EQ(configs.size(), 1u);
  EXPECT_TRUE(configs[0].profile_kernels);
  EXPECT_EQ(profile_output_stem(o, configs[0]), "out/run.tiny-ctx256-b4-bf16-forward");
  auto json_only = o;
  json_only.csv_path.clear();
  json_only.json_path = "r.json";
  EXPECT_EQ(profile_output_stem(json_only, configs[0]), "r.tiny-ctx256-b4-bf16-forward");
  json_only.json_path.clear();
  EXPECT_EQ(profile_output_stem(json_only, configs[0]), "stepscope-bench.tiny-ctx256-b4-bf16-forward");
  // Configurations that differ only in attention get files of their own.
  auto flash = configs[0];
  flash.model.attention = AttentionImpl::flash;
  EXPECT_EQ(profile_output_stem(json_only, flash), "stepscope-bench.tiny-ctx256-b4-bf16-forward-flash");
  const auto both = parse_bench_options({"--profile", "kernels,memory", "--memory-points", "500", "--memory-events",
                                         "5000"});
  EXPECT_TRUE(both.spec.base.profile_kernels && both.spec.base.profile_memory);
  EXPECT_EQ(both.memory_points, 500u);
  EXPECT_EQ(both.spec.base.memory_event_limit, 5000);
  EXPECT_EQ(error_of({"--memory-points", "100"}), "--memory-points and --memory-events need --profile memory");
  EXPECT_EQ(error_of({"--profile", "memory", "--memory-points", "3"}), "--memory-points: 3 is too small (at least 10)");
  EXPECT_EQ(error_of({"--profile", "cycles"}),
            "--profile: unknown profiler 'cycles' (use kernels, memory, ops or a list such as kernels,ops)");
  const auto ops = parse_bench_options({"--profile", "ops,memory"});
  EXPECT_TRUE(ops.spec.base.profile_operators && ops.spec.base.profile_memory);
  EXPECT_FALSE(ops.spec.base.profile_kernels);
  EXPECT_EQ(error_of({"--short-names"}), "--short-names needs --profile kernels");
}

TEST(BenchOptions, HelpSkipsValidation) {
  EXPECT_TRUE(parse_bench_options({"--help"}).help);
  EXPECT_TRUE(parse_bench_options({"-h"}).help);
}

TEST(CheckOptions, RequiredAndDependentOptions) {
  const auto o = parse_check_options({"--checkpoint", "m.pt", "--tokens", "t.npy", "--heads", "4", "--targets",
                                      "y.npy", "--out", "l.npy", "--adamw-step-out", "a.pt"});
  EXPECT_EQ(o.checkpoint, "m.pt");
  EXPECT_EQ(o.heads, 4);
  EXPECT_EQ(o.adamw_out, "a.pt");
  EXPECT_THROW(parse_check_options({"--tokens", "t.npy", "--heads", "4"}), CliError);
  EXPECT_THROW(parse_check_options({"--checkpoint", "m.pt", "--tokens", "t.npy"}), CliError);
  EXPECT_THROW(parse_check_options({"--checkpoint", "m.pt", "--tokens", "t.npy", "--heads", "0"}), CliError);
  EXPECT_THROW(parse_check_options({"--checkpoint", "m.pt", "--tokens", "t.npy", "--heads", "4", "--adamw-step-out",
                                    "a.pt"}),
               CliError);
}

}  // namespace
}  // namespace stepscope::cli

namespace stepscope::cli {
namespace {

// The command list comes from the registry: every command once, its summary beside it.
TEST(MainUsage, ListsEveryCommandOnce) {
  const std::string usage = main_usage();
  for (const char* command : {"bench", "attention", "precision", "collectives", "ddp", "plan", "check", "models"}) {
    const std::string line = std::string("\n  ") + command + " ";
    const size_t first = usage.find(line);
    EXPECT_NE(first, std::string::npos) << command << " missing:\n" << usage;
    EXPECT_EQ(usage.find(line, first + 1), std::string::npos) << command << " twice:\n" << usage;
  }
}

}  // namespace
}  // namespace stepscope::cli
