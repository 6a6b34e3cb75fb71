// What the planner is asked: a model, the precision of each kind of state, a layout of
// devices, the batch, a device's memory and the TPU Scaling Book's hardware numbers. Plain
// data; the CLI and the Planner panel fill it, make_plan() checks it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "experiments/ddp/bucket_overhead_model.h"
#include "planner/plan_model.h"
#include "runners/bench_types.h"

namespace stepscope::planner {

// Element type of each kind of memory; the seeds' (communication_accounting): fp32 master
// weights, accumulated gradients and AdamW state, bf16 activations and communication.
struct PlanPrecisions {
  Precision master_weights = Precision::fp32;
  Precision gradients = Precision::fp32;
  Precision optimizer_state = Precision::fp32;  // AdamW: two moments per parameter
  Precision activations = Precision::bf16;      // saved for backward
  Precision communication = Precision::bf16;    // gradients and activations on the wire
};

struct ParallelLayout {
  int64_t data_parallel = 1;   // replicas: only the global batch grows
  int64_t fsdp = 1;            // shards master weights, gradients, optimizer state, and a fraction of activations
  int64_t tensor_parallel = 1; // shards every matrix and (with sequence parallelism) every saved activation
  // Of the activations, the fraction FSDP shards too: the seeds' (b) shards half (every second layer).
  double fsdp_activation_fraction = 0.5;
  // ZeRO-1 (the seeds' sharded optimizer): the optimizer state is split over the DP ranks too.
  bool shard_optimizer_over_dp = false;
  int64_t devices() const { return data_parallel * fsdp * tensor_parallel; }
};

// The TPU Scaling Book's model of FSDP x TP for one FFN's forward pass (seeds'
// communication_accounting (c)); defaults are the handout's TPU v5p values.
struct ScalingBookInputs {
  double w_ici_Bps = 2 * 9e10;  // W_ici: one-directional ICI bandwidth per link, bytes/s, x2 links
  double c_flops = 4.6e14;      // C: bf16 FLOPs/s per chip
  double m_x = 2;               // M_X: mesh axes (links) the FSDP dimension X spans
  double m_y = 1;               // M_Y: mesh axes the TP dimension Y spans
  int64_t x = 16;               // X: FSDP dimension
  int64_t y = 4;                // Y: TP dimension
};

struct PlanRequest {
  PlanModel model;
  PlanPrecisions precisions;
  ParallelLayout layout;
  int64_t batch = 1;    // sequences per device (each FSDP and DP rank sees its own)
  int64_t context = 1;  // tokens per sequence; batch 1 x context 1 is the seeds' "per token"
  double device_memory_bytes = 95e9;  // e.g. a TPU v5p: 95 GB
  ScalingBookInputs scaling_book;
  // A measured all-reduce line (time = o + bytes/w) from a run: adds the DDP bucket optimum.
  std::optional<AllReduceFit> all_reduce;
};

}  // namespace stepscope::planner
