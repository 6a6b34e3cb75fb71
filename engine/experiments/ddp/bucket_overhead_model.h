// The seeds' model of bucketed DDP's overhead (ddp_bucketed_benchmarking (b)). If computing a
// bucket's gradients takes as long as communicating it, every bucket but the last is hidden
// behind backward, so what is left after backward is n_b calls' overhead plus one bucket's
// transfer:  overhead(n_b) = n_b*o + (s/n_b)/w,  minimal at n_b* = sqrt(s/(w*o)), i.e. buckets of
// s/n_b* = sqrt(s*w*o) bytes. w and o come from a least-squares line through measured all-reduce
// times (time = o + bytes/w). No LibTorch here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/collectives/collective_types.h"

namespace stepscope {

// One measured all-reduce: bytes every rank reduces (nccl-tests' size) and the time it took.
struct AllReduceSample {
  double bytes = 0;
  double seconds = 0;
};

// Which all-reduce rows belong to one fit: they share backend, world size and element type.
struct AllReduceKey {
  CommBackend backend = CommBackend::gloo;
  int ranks = 2;
  Precision dtype = Precision::fp32;
  bool operator==(const AllReduceKey& o) const { return backend == o.backend && ranks == o.ranks && dtype == o.dtype; }
};
std::string describe(const AllReduceKey& key);  // "gloo x2 fp32"

// time = o + bytes / w, fitted by least squares.
struct AllReduceFit {
  double overhead_s = 0;       // o: the intercept
  double bandwidth_Bps = 0;    // w: bytes per rank per second, 1 / slope
  int samples = 0;
  int distinct_sizes = 0;
};

// Throws ConfigError (field "size_bytes") with fewer than two distinct sizes or a slope that
// is not positive (time does not grow with size: no bandwidth to read).
AllReduceFit fit_all_reduce(const std::vector<AllReduceSample>& samples);

// The samples of `key` among collective benchmark rows: all-reduce, status ok, a measured time.
std::vector<AllReduceSample> all_reduce_samples(const std::vector<CollectiveResult>& rows, const AllReduceKey& key);
// The keys that have at least one such sample, in order of first appearance.
std::vector<AllReduceKey> all_reduce_keys(const std::vector<CollectiveResult>& rows);

// n_b for buckets of at most `bucket_bytes`: ceil(s / bucket), at least 1.
int64_t bucket_count(double param_bytes, double bucket_bytes);
// n_b*o + (s/n_b)/w in seconds.
double predicted_overhead_s(const AllReduceFit& fit, double param_bytes, int64_t buckets);

struct BucketOptimum {
  double buckets = 0;         // n_b* = sqrt(s/(w*o)), real
  double bucket_bytes = 0;    // s/n_b* = sqrt(s*w*o)
  double overhead_s = 0;      // at n_b*: 2*sqrt(s*o/w)
  int64_t best_buckets = 1;   // the integer n_b >= 1 with the least predicted overhead
  double best_overhead_s = 0;
};
// Throws ConfigError when o or w is not positive (with free calls more buckets always win: the
// model has no optimum) or param_bytes is not positive.
BucketOptimum bucket_optimum(const AllReduceFit& fit, double param_bytes);

// The formulas with every number substituted, for people to check:
// "time = o + bytes/w: o = 20.0 us, w = 100 GB/s (least squares over 4 sizes, 8 rows)"
std::string fit_text(const AllReduceFit& fit);
// "overhead = n_b*o + (s/n_b)/w = 4 x 20.0 us + (400 MiB / 4) / 100 GB/s = 80.0 us + 1.05 ms = 1.13 ms"
std::string overhead_text(const AllReduceFit& fit, double param_bytes, int64_t buckets);
// "n_b* = sqrt(s/(w*o)) = ... ; bucket* = s/n_b* = sqrt(s*w*o) = ... ; overhead* = 2*sqrt(s*o/w) = ..."
std::string optimum_text(const AllReduceFit& fit, double param_bytes);

}  // namespace stepscope
