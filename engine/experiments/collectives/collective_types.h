// The collective benchmark's plain types (nccl-tests' model): which collective, over which
// backend and ranks, of which size and element type; and its row: time, algorithm and bus
// bandwidth, and how many elements came out wrong. No LibTorch here.
#pragma once

#include <cstdint>
#include <string>

#include "core/comm_backend.h"
#include "core/device.h"
#include "core/precision.h"
#include "core/run_status.h"

namespace stepscope {

enum class CollectiveOp { all_reduce, reduce_scatter, all_gather, broadcast };
// "allreduce", "reducescatter", "allgather", "broadcast" (nccl-tests' names)
std::string to_string(CollectiveOp op);
CollectiveOp parse_collective_op(const std::string& text);  // throws ConfigError("op")

// nccl-tests' bus bandwidth factor over n ranks: all-reduce 2(n-1)/n, reduce-scatter and
// all-gather (n-1)/n, broadcast 1. busbw = algbw * factor is comparable with link speed.
double bus_bandwidth_factor(CollectiveOp op, int ranks);

struct CollectiveConfig {
  CollectiveOp op = CollectiveOp::all_reduce;
  CommBackend backend = CommBackend::gloo;
  int ranks = 2;
  // nccl-tests' size: the buffer every rank reduces or receives in full (all-reduce, broadcast:
  // the tensor; reduce-scatter: its input; all-gather: its output).
  int64_t size_bytes = 1 << 20;
  Precision dtype = Precision::fp32;
  int warmup_iters = 5;
  int iters = 20;
  Device device;  // the CPU by default; cuda: each rank its LOCAL_RANK's GPU
  // Ranks sharing this machine's memory (LOCAL_WORLD_SIZE): on the CPU, what the memory
  // precheck multiplies one rank's bytes by. Not part of the row.
  int ranks_on_host = 1;
};

// Throws ConfigError (field key) for what cannot run anywhere.
void validate(const CollectiveConfig& config);
// "allreduce gloo x2 100 MB fp32"
std::string describe(const CollectiveConfig& config);
// Elements of the full buffer: size / element size, rounded down to a multiple of the ranks
// where each rank owns a slice (reduce-scatter, all-gather).
int64_t element_count(const CollectiveConfig& config);
int64_t element_bytes_of(Precision dtype);
// What one rank holds at its highest point running `config`: its buffers, the copy Gloo's
// emulated reduce-scatter reduces, and Gloo's own scratch (measured: tests/cli/run_allreduce_ranks.sh).
int64_t collective_memory_bytes(const CollectiveConfig& config);

struct CollectiveResult {
  CollectiveConfig config;
  RunStatus status = RunStatus::ok;
  std::string message;
  std::string device_name;
  int64_t count = 0;
  double time_us = -1;  // mean over the measured iterations, the slowest rank's
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  int64_t wrong = -1;  // elements differing from the expected result, summed over ranks; < 0 unchecked
  bool native = true;  // false: the backend lacks it (Gloo's reduce-scatter is an all-reduce and a slice)
};

}  // namespace stepscope
