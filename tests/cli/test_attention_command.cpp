// `stepscope-cli attention check` in process: .npy inputs in, O, lse and gradients out,
// against naive attention computed here; and its refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include <torch/torch.h>

#include "attention/naive_attention.h"
#include "cli/commands.h"
#include "io/npy_file.h"
#include "support/temp_path.h"

namespace stepscope::cli {
namespace {

struct Outcome {
  int status;
  std::string out, err;
};

Outcome attention(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int status = run_attention_command(args, out, err);
  return {status, out.str(), err.str()};
}

double max_difference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

TEST(AttentionCheckCommand, WritesOLseAndGradientsThatMatchNaiveAttention) {
  const std::filesystem::path dir = stepscope::testing::temp_path("attention_check");
  std::filesystem::create_directories(dir);
  torch::manual_seed(3);
  const auto q = torch::randn({2, 3, 37, 16}, torch::kFloat64), k = torch::randn({2, 3, 50, 16}, torch::kFloat64),
             v = torch::randn({2, 3, 50, 16}, torch::kFloat64), d_o = torch::randn({2, 3, 37, 16}, torch::kFloat64);
  for (const auto& [name, t] : {std::pair{"q", q}, std::pair{"k", k}, std::pair{"v", v}, std::pair{"do", d_o}}) {
    write_npy_file(t, (dir / (std::string(name) + ".npy")).string());
  }
  const auto r = attention({"check", "--q", (dir / "q.npy").string(), "--k", (dir / "k.npy").string(), "--v",
                            (dir / "v.npy").string(), "--do", (dir / "do.npy").string(), "--causal", "--out",
                            (dir / "out").string()});
  ASSERT_EQ(r.status, kExitOk) << r.err;
  // The reference in float64 on the float32-rounded inputs the command computes with.
  const auto f = [](const torch::Tensor& t) { return t.to(torch::kFloat32).to(torch::kFloat64).requires_grad_(true); };
  auto q64 = f(q), k64 = f(k), v64 = f(v);
  auto o = naive_attention(q64, k64, v64, true);
  o.backward(d_o);
  auto scores = torch::matmul(q64, k64.transpose(-2, -1)) / 4.0;
  scores.masked_fill_(causal_future_mask(37, 50, torch::kCPU), -INFINITY);
  const auto lse = torch::logsumexp(scores, -1);
  const auto read = [&](const char* name) { return read_npy_file((dir / "out" / name).string()); };
  EXPECT_EQ(read("o.npy").scalar_type(), torch::kFloat32);
  EXPECT_LT(max_difference(read("o.npy"), o), 1e-5);
  EXPECT_LT(max_difference(read("lse.npy"), lse), 1e-5);
  EXPECT_LT(max_difference(read("dq.npy"), q64.grad()), 1e-4);
  EXPECT_LT(max_difference(read("dk.npy"), k64.grad()), 1e-4);
  EXPECT_LT(max_difference(read("dv.npy"), v64.grad()), 1e-4);
}

TEST(AttentionCheckCommand, RefusesInputsItCannotTakeNamingTheOption) {
  const std::filesystem::path dir = stepscope::testing::temp_path("attention_refusals");
  std::filesystem::create_directories(dir);
  write_npy_file(torch::randn({2, 8, 16}), (dir / "q.npy").string());
  write_npy_file(torch::randn({2, 8, 32}), (dir / "k32.npy").string());
  write_npy_file(torch::ones({2, 8, 16}, torch::kInt64), (dir / "ints.npy").string());
  write_npy_file(torch::randn({8, 16}), (dir / "flat.npy").string());
  const auto run = [&](const std::string& q, const std::string& k, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"check", "--q", (dir / q).string(), "--k", (dir / k).string(),
                                  "--v", (dir / k).string(), "--out", (dir / "out").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return attention(args);
  };
  auto r = run("ints.npy", "ints.npy");
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_NE(r.err.find("--q: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("float32 or float64"), std::string::npos) << r.err;
  r = run("flat.npy", "flat.npy");
  EXPECT_NE(r.err.find("(batch, seq, d)"), std::string::npos) << r.err;
  r = run("q.npy", "k32.npy");
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_NE(r.err.find("same head dim"), std::string::npos) << r.err;
  r = run("missing.npy", "q.npy");
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_NE(r.err.find("--q: "), std::string::npos) << r.err;
  r = run("q.npy", "q.npy", {"--impl", "turbo"});
  EXPECT_NE(r.err.find("--impl: unknown attention implementation 'turbo'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace stepscope::cli
