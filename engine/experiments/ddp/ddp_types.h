// The DDP experiments' plain types (issue 11): which gradient synchronisation, over which
// backend and ranks, training which model on how much data per rank; and its row: per-step
// phase times (mean over the measured steps, the slowest rank's) and, with --check, the largest
// parameter difference from one process trained on the whole global batch. No LibTorch here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/engine_kind.h"
#include "distributed/ddp/ddp_variant.h"
#include "distributed/sharding/optimizer_sharding.h"
#include "experiments/collectives/collective_types.h"
#include "model/model_config.h"
#include "profiling/memory_timeline.h"
#include "runners/bench_types.h"

namespace stepscope {

struct DdpConfig {
  distributed::DdpVariant variant = distributed::DdpVariant::naive;
  double bucket_mb = 25;  // bucketed only; MiB, as PyTorch DDP's bucket_cap_mb
  distributed::OptimizerSharding optimizer = distributed::OptimizerSharding::none;
  distributed::Zero1Gathers zero1_gathers = distributed::Zero1Gathers::step_end;  // zero1 only
  int ranks = 2;
  CommBackend backend = CommBackend::gloo;
  ModelConfig model;
  int64_t context = 256;
  int64_t batch = 4;  // per rank; the global batch is batch x ranks
  Precision precision = Precision::fp32;
  // eager: the reference model under autocast; fused: FusedTransformerLM (its own compute copy,
  // no autocast) with FusedAdamW where the optimizer state is not sharded.
  EngineKind engine = EngineKind::eager;
  // The type gradients travel and are summed in: fp32, or bf16 (each rank's gradients cast and
  // divided by the ranks in one pass, summed in bf16, cast back: PyTorch's bf16_compress_hook,
  // half the bytes).
  Precision reduce_dtype = Precision::fp32;
  // Fused on GPUs with the optimizer state on every rank: after warm-up the step (forward,
  // backward with its hooks' collectives, optimizer) replays as CUDA graphs.
  bool cuda_graphs = true;
  // SMs the matmuls leave to the collectives running beside them (GPUs, LibTorch 2.x): GEMMs
  // then schedule in full waves next to NCCL's kernels. 0: none. Pair with NCCL_MAX_CTAS.
  int sm_carveout = 0;
  int warmup_steps = 1;
  int measured_steps = 5;
  Device device;  // the CPU by default
  uint64_t seed = 0;
  bool check = false;  // after the measured steps, compare with one process
  bool profile_memory = false;  // record allocations: memory by category at the DdpMemoryPoints
  // Ranks sharing this machine's memory (LOCAL_WORLD_SIZE): on the CPU, what the memory
  // precheck multiplies one rank's bytes by. Not part of the row.
  int ranks_on_host = 1;
};

// The most SMs --sm-carveout may leave (more than any GPU has; the case checks its own).
constexpr int kMaxSmCarveout = 1024;

// The largest parameter difference --check accepts: 1e-5 in fp32 (and fp32 reduction) on the
// CPU (Gloo sums in a fixed order); none elsewhere, where reduction order and bf16 rounding make
// it a reading.
std::optional<double> check_tolerance(const DdpConfig& config);

// Throws ConfigError (field key: "variant", "bucket-mb", "nproc", "backend", "model", "context",
// "batch", "precision", "reduce-dtype", "sm-carveout", "warmup", "steps") for what cannot run.
void validate(const DdpConfig& config);
// "bucketed 1 MiB gloo x2 tiny ctx 16 b 2 fp32", then " fused" and " bf16 reduce" where so
std::string describe(const DdpConfig& config);
int64_t bucket_bytes(const DdpConfig& config);
// What one rank holds at its highest point, by the bench's estimate of a training step of its
// batch, plus the flattened gradients (flat, bucketed) and, with --check, the one-process
// reference on the whole global batch. Saturates instead of wrapping.
int64_t ddp_memory_bytes(const DdpConfig& config);

// Where a rank's memory is read when profiled (the seeds' optimizer_state_sharding_accounting):
// once the model, gradient buffers and optimizer exist, and in the last measured step right
// before and right after the optimizer step.
enum class DdpMemoryPoint { after_init, before_optimizer_step, after_optimizer_step };
inline constexpr DdpMemoryPoint kDdpMemoryPoints[] = {DdpMemoryPoint::after_init, DdpMemoryPoint::before_optimizer_step,
                                                      DdpMemoryPoint::after_optimizer_step};
std::string to_string(DdpMemoryPoint point);
DdpMemoryPoint parse_ddp_memory_point(const std::string& text);  // ConfigError("point")

struct DdpResult {
  DdpConfig config;
  int rank = -1;  // a rank's own row; -1: the row of all ranks (each time the slowest rank's)
  RunStatus status = RunStatus::ok;
  std::string message;
  std::string device_name;
  // Per step, mean over the measured steps, max over ranks; < 0 unmeasured.
  double step_ms = -1, forward_ms = -1, backward_ms = -1, comm_ms = -1, exposed_comm_ms = -1, optimizer_ms = -1;
  double max_param_diff = -1;  // < 0 when not checked
  bool cuda_graphs_used = false;  // the measured steps replayed CUDA graphs
  int64_t comm_bytes = -1;     // bytes the gradient collectives carried per step (max over ranks)
  int64_t optimizer_state_bytes = -1;  // AdamW's moments this rank holds (the row: the largest)
  // With profile_memory: this rank's live bytes per category at each DdpMemoryPoint, in order.
  std::vector<profiling::CategoryBytes> memory;
};

// What a DDP run covers: optimizers (zero1 once per gather timing) x variants x bucket sizes
// (bucketed only) x engines around one base configuration.
struct DdpSweepSpec {
  DdpConfig base;
  std::vector<distributed::DdpVariant> variants = distributed::all_ddp_variants();
  std::vector<double> bucket_mbs{1, 10, 100};
  std::vector<distributed::OptimizerSharding> optimizers{distributed::OptimizerSharding::none};
  std::vector<distributed::Zero1Gathers> zero1_gathers{distributed::Zero1Gathers::step_end};
  std::vector<EngineKind> engines{EngineKind::eager};
};

// For each optimizer, the variants in the given order; bucketed once per bucket size, the
// others once; each of those once per engine, side by side.
std::vector<DdpConfig> expand(const DdpSweepSpec& spec, int ranks);

}  // namespace stepscope
