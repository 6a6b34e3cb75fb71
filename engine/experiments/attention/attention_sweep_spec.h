// What an attention sweep covers: the cartesian product of implementations, head dims, sequence
// lengths and precisions around one base configuration. Plain types (no LibTorch), so the app's
// form can build and check a sweep before the engine runs it.
#pragma once

#include <cstdint>
#include <vector>

#include "attention/attention_types.h"

namespace stepscope {

struct AttentionSweepSpec {
  AttentionConfig base;  // batch, heads, causal, steps, device, seed
  std::vector<AttentionImpl> impls{AttentionImpl::naive, AttentionImpl::flash};
  std::vector<int64_t> head_dims{16, 32, 64, 128};
  std::vector<int64_t> seqs{256, 1024, 4096, 8192, 16384};
  std::vector<Precision> precisions{Precision::fp32};
  // Interleaved rounds of the measured passes (interleaved_rounds.h); 0: default_rounds.
  int rounds = 0;
};

// The rounds the sweep runs: `rounds`, or the default for its implementations and passes.
int sweep_rounds(const AttentionSweepSpec& spec);
// Throws ConfigError (field "rounds") for rounds below 0 or more rounds than measured passes.
void validate_rounds(const AttentionSweepSpec& spec);

// Sequence lengths outermost and implementations innermost, so rows to compare sit together.
std::vector<AttentionConfig> expand(const AttentionSweepSpec& spec);

}  // namespace stepscope
