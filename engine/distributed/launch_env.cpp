#include "distributed/launch_env.h"

#include <charconv>
#include <cstdlib>
#include <limits>

#include "core/config_error.h"
#include "core/size_limits.h"

namespace stepscope::distributed {
namespace {

constexpr const char* kOrigin = " (set by torchrun or the launcher that started this process)";

// A whole number from `minimum` to `maximum`, digits only: no sign, spaces or suffix.
int parse_whole_number(const char* name, const std::string& text, long long minimum, long long maximum) {
  const std::string range = " (" + std::to_string(minimum) + " to " + std::to_string(maximum) + ")";
  long long value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || text.front() == '-' || ec == std::errc::invalid_argument || ptr != end) {
    throw ConfigError(std::string(name) + " is \"" + text + "\"; it must be a whole number" + range + kOrigin, name);
  }
  if (ec == std::errc::result_out_of_range || value < minimum || value > maximum) {
    throw ConfigError(std::string(name) + " is " + text + ", out of range" + range + kOrigin, name);
  }
  return static_cast<int>(value);
}

}  // namespace

const std::array<const char*, 6>& TorchrunEnv::variable_names() {
  static const std::array<const char*, 6> names = {"MASTER_ADDR", "MASTER_PORT", "RANK",
                                                   "WORLD_SIZE",  "LOCAL_RANK",  "LOCAL_WORLD_SIZE"};
  return names;
}

std::optional<TorchrunEnv> TorchrunEnv::from_environment() {
  return from_lookup([](const char* name) { return std::getenv(name); });
}

std::optional<TorchrunEnv> TorchrunEnv::from_lookup(const std::function<const char*(const char*)>& lookup) {
  std::array<const char*, 6> values{};
  std::string set_names, missing_names;
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = lookup(variable_names()[i]);
    std::string& list = values[i] ? set_names : missing_names;
    list += (list.empty() ? "" : ", ") + std::string(variable_names()[i]);
  }
  if (set_names.empty()) return std::nullopt;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i]) {
      throw ConfigError(std::string(variable_names()[i]) + " is not set, but " + set_names +
                            " are: a distributed worker needs all of MASTER_ADDR, MASTER_PORT, RANK, "
                            "WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE (missing: " + missing_names + ")",
                        variable_names()[i]);
    }
  }
  constexpr long long kMaxInt = std::numeric_limits<int>::max();
  TorchrunEnv env;
  env.master_addr = values[0];
  env.master_port = parse_whole_number("MASTER_PORT", values[1], 1, 65535);
  env.world_size = parse_whole_number("WORLD_SIZE", values[3], 1, kMaxRanks);
  env.rank = parse_whole_number("RANK", values[2], 0, kMaxInt);
  env.local_world_size = parse_whole_number("LOCAL_WORLD_SIZE", values[5], 1, kMaxRanks);
  env.local_rank = parse_whole_number("LOCAL_RANK", values[4], 0, kMaxInt);
  env.validate();
  return env;
}

void TorchrunEnv::validate() const {
  if (master_addr.empty() || master_addr.find_first_of(" \t\r\n") != std::string::npos) {
    throw ConfigError("MASTER_ADDR is \"" + master_addr + "\"; it must be a host name or address" + kOrigin,
                      "MASTER_ADDR");
  }
  if (master_port < 1 || master_port > 65535) {
    throw ConfigError("MASTER_PORT is " + std::to_string(master_port) + ", out of range (1 to 65535)" + kOrigin,
                      "MASTER_PORT");
  }
  if (world_size < 1 || world_size > kMaxRanks) {
    throw ConfigError("WORLD_SIZE is " + std::to_string(world_size) + ", out of range (1 to " +
                          std::to_string(kMaxRanks) + ")" + kOrigin,
                      "WORLD_SIZE");
  }
  if (rank < 0 || rank >= world_size) {
    throw ConfigError("RANK is " + std::to_string(rank) + " but WORLD_SIZE is " + std::to_string(world_size) +
                          ": RANK must be from 0 to WORLD_SIZE-1" + kOrigin,
                      "RANK");
  }
  if (local_world_size < 1 || local_world_size > world_size) {
    throw ConfigError("LOCAL_WORLD_SIZE is " + std::to_string(local_world_size) + " but WORLD_SIZE is " +
                          std::to_string(world_size) + ": LOCAL_WORLD_SIZE must be from 1 to WORLD_SIZE" + kOrigin,
                      "LOCAL_WORLD_SIZE");
  }
  if (local_rank < 0 || local_rank >= local_world_size) {
    throw ConfigError("LOCAL_RANK is " + std::to_string(local_rank) + " but LOCAL_WORLD_SIZE is " +
                          std::to_string(local_world_size) + ": LOCAL_RANK must be from 0 to LOCAL_WORLD_SIZE-1" +
                          kOrigin,
                      "LOCAL_RANK");
  }
}

void check_one_gpu_per_rank(int local_ranks, int gpus) {
  if (local_ranks <= gpus) return;
  const std::string have = gpus == 0 ? "no CUDA device is visible" : "this machine has " + std::to_string(gpus) + " GPU(s)";
  throw ConfigError(std::to_string(local_ranks) + " ranks on this machine need " + std::to_string(local_ranks) +
                        " GPUs, one per rank (NCCL refuses two ranks on one GPU), and " + have +
                        "; use fewer ranks, or --device cpu with Gloo",
                    "nproc");
}

}  // namespace stepscope::distributed
