// The DDP experiments' memory table (with --profile-memory): per row, rank and DdpMemoryPoint,
// the live bytes in all and per category (parameters, gradients, optimizer state, activations,
// temporaries, inputs, other): the seeds' optimizer_state_sharding_accounting (a), per rank.
#pragma once

#include <vector>

#include "experiments/ddp/ddp_types.h"
#include "schema/schema.h"

namespace stepscope {

struct DdpMemoryRow {
  DdpConfig config;
  int rank = 0;
  DdpMemoryPoint point = DdpMemoryPoint::after_init;
  profiling::CategoryBytes bytes{};
};

const schema::Schema<DdpMemoryRow>& ddp_memory_schema();
// The rows of one rank's result (none without memory readings).
std::vector<DdpMemoryRow> memory_rows(const DdpResult& rank_row);

}  // namespace stepscope
