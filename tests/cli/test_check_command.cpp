// `stepscope-cli check` in process, against the fixture written by the Python reference.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "cli/commands.h"
#include "io/npy_file.h"
#include "io/state_dict_file.h"
#include "support/temp_path.h"

namespace stepscope::cli {
namespace {

std::string fixture(const std::string& name) { return std::string(STEPSCOPE_TEST_DATA_DIR) + "/tiny_model/" + name; }

struct Outcome {
  int status;
  std::string out, err;
};

Outcome check(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int status = run_check_command(args, out, err);
  return {status, out.str(), err.str()};
}

TEST(CheckCommand, LossLogitsAndAdamWStepMatchThePythonReference) {
  const std::string dir = stepscope::testing::temp_path("dir");
  std::filesystem::create_directories(dir);
  const auto r = check({"--checkpoint", fixture("model.pt"), "--tokens", fixture("tokens.npy"), "--targets",
                        fixture("targets.npy"), "--heads", "4", "--out", dir + "/logits.npy", "--adamw-step-out",
                        dir + "/after.pt"});
  ASSERT_EQ(r.status, kExitOk) << r.err;
  std::ifstream loss_file(fixture("loss.json"));
  const double expected_loss = nlohmann::json::parse(loss_file)["loss_fp64"].get<double>();
  ASSERT_EQ(r.out.rfind("loss ", 0), 0u) << r.out;
  EXPECT_NEAR(std::stod(r.out.substr(5)), expected_loss, 1e-5);

  const auto logits = read_npy_file(dir + "/logits.npy");
  const auto expected = read_npy_file(fixture("logits.npy"));
  EXPECT_EQ(logits.scalar_type(), torch::kFloat32);
  EXPECT_LT((logits.to(torch::kFloat64) - expected.to(torch::kFloat64)).norm().item<double>() /
                expected.to(torch::kFloat64).norm().item<double>(),
            1e-5);

  for (const auto& entry : load_state_dict_file(dir + "/after.pt")) {
    const auto reference = read_npy_file(fixture("adamw_fp64/" + entry.name + ".npy"));
    EXPECT_LT((entry.tensor.to(torch::kFloat64) - reference.to(torch::kFloat64)).abs().max().item<double>(), 2e-5)
        << entry.name;
  }
}

TEST(CheckCommand, BadInputsGiveMessagesNotCrashes) {
  const std::string dir = stepscope::testing::temp_path("dir");
  std::filesystem::create_directories(dir);
  // Token ids out of the vocabulary of 97.
  write_npy_file(torch::full({1, 4}, 97, torch::kInt64), dir + "/big_ids.npy");
  auto r = check({"--checkpoint", fixture("model.pt"), "--tokens", dir + "/big_ids.npy", "--heads", "4"});
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_NE(r.err.find("ids must lie in [0, 97)"), std::string::npos) << r.err;
  // Float tokens.
  write_npy_file(torch::zeros({1, 4}), dir + "/float_ids.npy");
  r = check({"--checkpoint", fixture("model.pt"), "--tokens", dir + "/float_ids.npy", "--heads", "4"});
  EXPECT_NE(r.err.find("token ids must be integers"), std::string::npos) << r.err;
  // Heads that do not divide d_model = 32.
  r = check({"--checkpoint", fixture("model.pt"), "--tokens", fixture("tokens.npy"), "--heads", "5"});
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_NE(r.err.find("not divisible"), std::string::npos) << r.err;
  // Targets of another shape.
  write_npy_file(torch::zeros({2, 3}, torch::kInt64), dir + "/short_targets.npy");
  r = check({"--checkpoint", fixture("model.pt"), "--tokens", fixture("tokens.npy"), "--targets",
             dir + "/short_targets.npy", "--heads", "4"});
  EXPECT_NE(r.err.find("--targets has shape"), std::string::npos) << r.err;
  // A file that is not a checkpoint.
  r = check({"--checkpoint", fixture("tokens.npy"), "--tokens", fixture("tokens.npy"), "--heads", "4"});
  EXPECT_EQ(r.status, kExitFailure);
  EXPECT_NE(r.err.find("tokens.npy"), std::string::npos) << r.err;
  // Missing tokens file.
  r = check({"--checkpoint", fixture("model.pt"), "--tokens", dir + "/none.npy", "--heads", "4"});
  EXPECT_EQ(r.status, kExitFailure);
  EXPECT_NE(r.err.find("none.npy"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace stepscope::cli
