// The bucket overhead model read against a run: w and o fitted to the all-reduce rows of a
// collective benchmark's table, s from the DDP rows' model preset (fp32 gradients), the optimal
// bucket size, and for every bucketed DDP row the predicted overhead beside the measured one
// (its exposed communication: what was left after backward ended). No LibTorch here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "experiments/ddp/bucket_overhead_model.h"
#include "schema/table.h"

namespace stepscope {

// The collective table's rows with their measured times (time_us has no setter in the schema).
std::vector<CollectiveResult> collective_rows(const schema::Table& table);

struct BucketRowReading {
  double bucket_mb = 0;  // MiB, as the DDP row
  int ranks = 0;
  int64_t buckets = 1;
  double predicted_ms = -1;  // < 0: no fit for this row's backend and world size
  double measured_ms = -1;   // exposed_comm_ms; < 0 unmeasured
  std::string formula;       // the overhead formula with its numbers, or why there is none
};

struct BucketOverheadReading {
  AllReduceKey key;  // the fit shown
  std::optional<AllReduceFit> fit;
  std::string model;
  double param_bytes = 0;
  std::optional<BucketOptimum> optimum;
  std::string problem;  // why the fit or the optimum is missing, or what it stands in for
  std::vector<BucketRowReading> rows;
};

// None when the collective table has no measured all-reduce row (nothing to fit); otherwise
// the fit of the first bucketed row's backend and world size in fp32 (the first group there
// is, said in `problem`, when that one is missing). Tables of other schemas read as empty.
std::optional<BucketOverheadReading> bucket_overhead_reading(const schema::Table& ddp, const schema::Table& collectives);

// Every number beside its formula, one statement a line.
std::string reading_text(const BucketOverheadReading& reading);

}  // namespace stepscope
