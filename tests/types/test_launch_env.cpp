// The torchrun environment a worker reads (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE,
// LOCAL_RANK, LOCAL_WORLD_SIZE): a plain process, a multi-node job, and every variable that is
// missing, malformed or inconsistent named as the field at fault.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "distributed/launch_env.h"
#include "core/config_error.h"

namespace stepscope::distributed {
namespace {
// Sets the six torchrun variables in this process for one test and restores them after.
class ScopedTorchrunEnv {
 public:
  ScopedTorchrunEnv() {
    for (const char* name : TorchrunEnv::variable_names()) {
      if (const char* value = std::getenv(name)) saved_[name] = value;
      unsetenv(name);
    }
  }
  ~ScopedTorchrunEnv() {
    for (const char* name : TorchrunEnv::variable_names()) {
      const auto it = saved_.find(name);
      if (it == saved_.end()) {
        unsetenv(name);
      } else {
        setenv(name, it->second.c_str(), 1);
      }
    }
  }
  void set_valid(int rank = 1) {
    setenv("MASTER_ADDR", "node-0.cluster", 1);
    setenv("MASTER_PORT", "29500", 1);
    setenv("RANK", std::to_string(rank).c_str(), 1);
    setenv("WORLD_SIZE", "8", 1);
    setenv("LOCAL_RANK", std::to_string(rank % 4).c_str(), 1);
    setenv("LOCAL_WORLD_SIZE", "4", 1);
  }

 private:
  std::map<std::string, std::string> saved_;
};

// The field of the ConfigError that reading the environment throws, and its message.
std::pair<std::string, std::string> config_error() {
  try {
    TorchrunEnv::from_environment();
  } catch (const ConfigError& error) {
    return {error.field(), error.what()};
  }
  return {};
}

TEST(TorchrunEnv, NoneSetIsASingleProcess) {
  ScopedTorchrunEnv env;
  EXPECT_FALSE(TorchrunEnv::from_environment().has_value());
}

TEST(TorchrunEnv, ReadsAMultiNodeJob) {
  ScopedTorchrunEnv env;
  env.set_valid(5);
  const auto read = TorchrunEnv::from_environment();
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->master_addr, "node-0.cluster");
  EXPECT_EQ(read->master_port, 29500);
  EXPECT_EQ(read->rank, 5);
  EXPECT_EQ(read->world_size, 8);
  EXPECT_EQ(read->local_rank, 1);
  EXPECT_EQ(read->local_world_size, 4);
}

TEST(TorchrunEnv, MissingVariableIsNamed) {
  ScopedTorchrunEnv env;
  env.set_valid();
  unsetenv("LOCAL_WORLD_SIZE");
  const auto [field, message] = config_error();
  EXPECT_EQ(field, "LOCAL_WORLD_SIZE");
  EXPECT_NE(message.find("LOCAL_WORLD_SIZE is not set"), std::string::npos) << message;
}

TEST(TorchrunEnv, MalformedValuesAreNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"RANK", "abc"},          {"RANK", "-1"},         {"RANK", " 1"},          {"RANK", "1x"},
      {"RANK", ""},             {"RANK", "99999999999"}, {"WORLD_SIZE", "0"},     {"MASTER_PORT", "0"},
      {"WORLD_SIZE", "100000"}, {"LOCAL_WORLD_SIZE", "100000"},
      {"MASTER_PORT", "70000"}, {"LOCAL_RANK", "+1"},   {"LOCAL_WORLD_SIZE", "0"}, {"MASTER_ADDR", ""}};
  for (const auto& [name, value] : cases) {
    ScopedTorchrunEnv env;
    env.set_valid();
    setenv(name.c_str(), value.c_str(), 1);
    const auto [field, message] = config_error();
    EXPECT_EQ(field, name) << name << "=" << value << ": " << message;
    EXPECT_NE(message.find(name), std::string::npos) << message;
  }
}

TEST(TorchrunEnv, InconsistentValuesAreNamed) {
  ScopedTorchrunEnv env;
  env.set_valid();
  setenv("RANK", "8", 1);
  EXPECT_EQ(config_error().first, "RANK");
  EXPECT_NE(config_error().second.find("RANK is 8 but WORLD_SIZE is 8"), std::string::npos) << config_error().second;

  env.set_valid();
  setenv("LOCAL_RANK", "4", 1);
  EXPECT_EQ(config_error().first, "LOCAL_RANK");

  env.set_valid();
  setenv("LOCAL_WORLD_SIZE", "9", 1);
  EXPECT_EQ(config_error().first, "LOCAL_WORLD_SIZE");
}

TEST(OneGpuPerRank, AsManyRanksAsGpusRun) {
  EXPECT_NO_THROW(check_one_gpu_per_rank(4, 4));
  EXPECT_NO_THROW(check_one_gpu_per_rank(2, 8));
}

TEST(OneGpuPerRank, MoreRanksThanGpusNameTheCounts) {
  try {
    check_one_gpu_per_rank(6, 4);
    FAIL() << "6 ranks on 4 GPUs ran";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.field(), "nproc");
    const std::string what = error.what();
    EXPECT_NE(what.find("6 ranks"), std::string::npos) << what;
    EXPECT_NE(what.find("has 4 GPU"), std::string::npos) << what;
  }
  EXPECT_THROW(check_one_gpu_per_rank(1, 0), ConfigError);
}

}  // namespace
}  // namespace stepscope::distributed
