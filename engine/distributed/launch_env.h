// The environment torchrun sets for each worker (and srun jobs or any launcher that follows
// its conventions, the local WorkerLauncher included), read and checked in the worker.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>

namespace stepscope::distributed {

// Ranks of one job at most, from WORLD_SIZE or --nproc; the experiments' own limit.
inline constexpr int kMaxRanks = 4096;

struct TorchrunEnv {
  std::string master_addr;  // MASTER_ADDR: where rank 0's store listens
  int master_port = 0;      // MASTER_PORT: 1..65535
  int rank = 0;             // RANK: 0..WORLD_SIZE-1
  int world_size = 1;       // WORLD_SIZE: processes in the job, all nodes
  int local_rank = 0;       // LOCAL_RANK: 0..LOCAL_WORLD_SIZE-1
  int local_world_size = 1; // LOCAL_WORLD_SIZE: processes on this node, 1..WORLD_SIZE

  // MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE.
  static const std::array<const char*, 6>& variable_names();

  // nullopt when none of the six variables is set (a plain single process). Throws ConfigError,
  // its field the variable's name ("RANK"), when some are set but one is missing, malformed
  // (not a whole number, out of range) or inconsistent with another (RANK >= WORLD_SIZE...).
  static std::optional<TorchrunEnv> from_environment();
  // The same through `lookup`, which returns nullptr for a variable that is not set.
  static std::optional<TorchrunEnv> from_lookup(const std::function<const char*(const char*)>& lookup);

  // The checks above on the fields; throws ConfigError.
  void validate() const;
};

// Ranks on GPUs take one GPU each (NCCL refuses two ranks of a group on one GPU): throws
// ConfigError, field "nproc", when `local_ranks` exceed the `gpus` this node has.
void check_one_gpu_per_rank(int local_ranks, int gpus);

}  // namespace stepscope::distributed
