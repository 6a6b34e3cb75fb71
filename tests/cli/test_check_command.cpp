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
  // A file that is not a checkpoint, a missing tokens file: bad input files, exit status 2.
  r = check({"--checkpoint", fixture("tokens.npy"), "--tokens", fixture("tokens.npy"), "--heads", "4"});
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_NE(r.err.find("--checkpoint: " + fixture("tokens.npy")), std::string::npos) << r.err;
  r = check({"--checkpoint", fixture("model.pt"), "--tokens", dir + "/none.npy", "--heads", "4"});
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_NE(r.err.find("--tokens: " + dir + "/none.npy"), std::string::npos) << r.err;
}

// The tiny model's checkpoint with every tensor converted to `dtype` (what torch.save of
// model.to(dtype).state_dict() holds), and the same values as float32.
void save_as(at::ScalarType dtype, const std::string& path, const std::string& float32_path) {
  StateDict state = load_state_dict_file(fixture("model.pt"));
  StateDict same_values = state;
  for (size_t k = 0; k < state.size(); ++k) {
    state[k].tensor = state[k].tensor.to(dtype);
    same_values[k].tensor = state[k].tensor.to(torch::kFloat32);
  }
  save_state_dict_file(state, path);
  save_state_dict_file(same_values, float32_path);
}

TEST(CheckCommand, Float64Float16AndBFloat16CheckpointsGiveTheLossOfTheirValues) {
  const std::string dir = stepscope::testing::temp_path("dtypes");
  std::filesystem::create_directories(dir);
  const auto loss_line = [](const std::string& checkpoint) {
    const auto r = check({"--checkpoint", checkpoint, "--tokens", fixture("tokens.npy"), "--targets",
                          fixture("targets.npy"), "--heads", "4"});
    EXPECT_EQ(r.status, kExitOk) << r.err;
    return r.out;
  };
  const std::string fp32 = loss_line(fixture("model.pt"));
  for (const auto dtype : {torch::kFloat64, torch::kFloat16, torch::kBFloat16}) {
    SCOPED_TRACE(c10::toString(dtype));
    save_as(dtype, dir + "/model.pt", dir + "/as_float32.pt");
    EXPECT_EQ(loss_line(dir + "/model.pt"), loss_line(dir + "/as_float32.pt"));
  }
  // float64 holds float32's values exactly: the very loss of the float32 file.
  save_as(torch::kFloat64, dir + "/model.pt", dir + "/as_float32.pt");
  EXPECT_EQ(loss_line(dir + "/model.pt"), fp32);
}

TEST(CheckCommand, CheckpointsThatCannotBeReadRightAreRefusedNamingTheTensor) {
  // A storage class that does not match its record: refused before any loss is printed.
  auto r = check({"--checkpoint", std::string(STEPSCOPE_TEST_DATA_DIR) + "/io/half_holds_float.pt", "--tokens",
                  fixture("tokens.npy"), "--heads", "4"});
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_NE(r.err.find("--checkpoint: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tensor 'w'"), std::string::npos) << r.err;
  // float64 past float32's range: the model's float32 copy would be inf, the loss NaN.
  const std::string dir = stepscope::testing::temp_path("refused");
  std::filesystem::create_directories(dir);
  StateDict state = load_state_dict_file(fixture("model.pt"));
  for (auto& entry : state) entry.tensor = entry.tensor.to(torch::kFloat64);
  state[2].tensor.view(-1)[5] = -1e300;
  save_state_dict_file(state, dir + "/overflow.pt");
  r = check({"--checkpoint", dir + "/overflow.pt", "--tokens", fixture("tokens.npy"), "--targets",
             fixture("targets.npy"), "--heads", "4"});
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("'" + state[2].name + "' holds -1e+300, beyond float32's range"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace stepscope::cli
