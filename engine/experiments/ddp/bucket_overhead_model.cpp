#include "experiments/ddp/bucket_overhead_model.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "model/checked_count.h"
#include "core/config_error.h"
#include "schema/value_format.h"

namespace stepscope {

namespace {

std::string seconds_text(double s) { return schema::duration_ns_text(s * 1e9); }
std::string bytes_text(double bytes) { return schema::mib_text(std::llround(bytes)); }
// GB/s (10^9), as the collective table's algbw_gbps.
std::string bandwidth_text(double bytes_per_s) { return schema::significant(bytes_per_s * 1e-9) + " GB/s"; }

}  // namespace

std::string describe(const AllReduceKey& key) {
  return to_string(key.backend) + " x" + std::to_string(key.ranks) + " " + to_string(key.dtype);
}

AllReduceFit fit_all_reduce(const std::vector<AllReduceSample>& samples) {
  std::set<double> sizes;
  for (const auto& s : samples) sizes.insert(s.bytes);
  if (sizes.size() < 2) {
    throw ConfigError("fitting all-reduce time = o + bytes/w needs at least 2 distinct sizes (got " +
                          std::to_string(sizes.size()) + ")",
                      "size_bytes");
  }
  // Centred sums: sizes span decades, raw sums of squares would lose the small ones.
  const double n = static_cast<double>(samples.size());
  double mean_x = 0, mean_y = 0;
  for (const auto& s : samples) {
    mean_x += s.bytes / n;
    mean_y += s.seconds / n;
  }
  double sxx = 0, sxy = 0;
  for (const auto& s : samples) {
    sxx += (s.bytes - mean_x) * (s.bytes - mean_x);
    sxy += (s.bytes - mean_x) * (s.seconds - mean_y);
  }
  const double slope = sxy / sxx;
  if (!(slope > 0)) {
    throw ConfigError("all-reduce time does not grow with size (fitted slope " + schema::significant(slope * 1e9) +
                          " s/GB): no bandwidth to read",
                      "time_us");
  }
  AllReduceFit fit;
  fit.bandwidth_Bps = 1 / slope;
  fit.overhead_s = mean_y - slope * mean_x;
  fit.samples = static_cast<int>(samples.size());
  fit.distinct_sizes = static_cast<int>(sizes.size());
  return fit;
}

std::vector<AllReduceSample> all_reduce_samples(const std::vector<CollectiveResult>& rows, const AllReduceKey& key) {
  std::vector<AllReduceSample> out;
  for (const auto& r : rows) {
    const AllReduceKey k{r.config.backend, r.config.ranks, r.config.dtype};
    if (r.config.op != CollectiveOp::all_reduce || r.status != RunStatus::ok || !(r.time_us > 0) || !(k == key)) continue;
    out.push_back({static_cast<double>(r.config.size_bytes), r.time_us * 1e-6});
  }
  return out;
}

std::vector<AllReduceKey> all_reduce_keys(const std::vector<CollectiveResult>& rows) {
  std::vector<AllReduceKey> keys;
  for (const auto& r : rows) {
    const AllReduceKey k{r.config.backend, r.config.ranks, r.config.dtype};
    if (r.config.op != CollectiveOp::all_reduce || r.status != RunStatus::ok || !(r.time_us > 0)) continue;
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  return keys;
}

int64_t bucket_count(double param_bytes, double bucket_bytes) {
  if (!(bucket_bytes > 0) || !(param_bytes > 0)) return 1;
  return std::max<int64_t>(1, checked_count(std::ceil(param_bytes / bucket_bytes), "the bucket count", "bucket_mb"));
}

double predicted_overhead_s(const AllReduceFit& fit, double param_bytes, int64_t buckets) {
  const double n = static_cast<double>(std::max<int64_t>(1, buckets));
  return n * fit.overhead_s + param_bytes / n / fit.bandwidth_Bps;
}

BucketOptimum bucket_optimum(const AllReduceFit& fit, double param_bytes) {
  if (!(fit.overhead_s > 0)) {
    throw ConfigError("the fitted per-call overhead o = " + seconds_text(fit.overhead_s) +
                          " is not positive: with free calls more buckets always win, the model has no optimum",
                      "time_us");
  }
  if (!(fit.bandwidth_Bps > 0)) throw ConfigError("the all-reduce bandwidth w is not positive", "time_us");
  if (!(param_bytes > 0)) throw ConfigError("the model has no parameter bytes", "model");
  BucketOptimum o;
  o.buckets = std::sqrt(param_bytes / (fit.bandwidth_Bps * fit.overhead_s));
  o.bucket_bytes = std::sqrt(param_bytes * fit.bandwidth_Bps * fit.overhead_s);
  o.overhead_s = 2 * std::sqrt(param_bytes * fit.overhead_s / fit.bandwidth_Bps);
  // The overhead is convex in n_b, so the best whole number is a neighbour of n_b*.
  // A fitted o or w near zero (a crafted run file) puts n_b* past any count.
  const auto low = std::max<int64_t>(1, checked_count(std::floor(o.buckets), "the bucket count n_b*", "time_us"));
  const int64_t high = std::max<int64_t>(1, checked_count(std::ceil(o.buckets), "the bucket count n_b*", "time_us"));
  const double at_low = predicted_overhead_s(fit, param_bytes, low);
  const double at_high = predicted_overhead_s(fit, param_bytes, high);
  o.best_buckets = at_high < at_low ? high : low;
  o.best_overhead_s = std::min(at_low, at_high);
  return o;
}

std::string fit_text(const AllReduceFit& fit) {
  std::ostringstream s;
  s << "time = o + bytes/w: o = " << seconds_text(fit.overhead_s) << ", w = " << bandwidth_text(fit.bandwidth_Bps)
    << " (least squares over " << fit.distinct_sizes << " sizes, " << fit.samples << " rows)";
  return s.str();
}

std::string overhead_text(const AllReduceFit& fit, double param_bytes, int64_t buckets) {
  const double n = static_cast<double>(std::max<int64_t>(1, buckets));
  const double calls = n * fit.overhead_s, transfer = param_bytes / n / fit.bandwidth_Bps;
  std::ostringstream s;
  s << "overhead = n_b*o + (s/n_b)/w = " << static_cast<int64_t>(n) << " x " << seconds_text(fit.overhead_s) << " + ("
    << bytes_text(param_bytes) << " / " << static_cast<int64_t>(n) << ") / " << bandwidth_text(fit.bandwidth_Bps)
    << " = " << seconds_text(calls) << " + " << seconds_text(transfer) << " = " << seconds_text(calls + transfer);
  return s.str();
}

std::string optimum_text(const AllReduceFit& fit, double param_bytes) {
  const BucketOptimum o = bucket_optimum(fit, param_bytes);
  const std::string s_text = bytes_text(param_bytes), w_text = bandwidth_text(fit.bandwidth_Bps),
                    o_text = seconds_text(fit.overhead_s);
  std::ostringstream s;
  s << "n_b* = sqrt(s/(w*o)) = sqrt(" << s_text << " / (" << w_text << " x " << o_text
    << ")) = " << schema::significant(o.buckets) << "\n"
    << "bucket* = s/n_b* = sqrt(s*w*o) = sqrt(" << s_text << " x " << w_text << " x " << o_text
    << ") = " << bytes_text(o.bucket_bytes) << "\n"
    << "overhead* = 2*sqrt(s*o/w) = " << seconds_text(o.overhead_s) << "; best whole n_b = " << o.best_buckets
    << " (buckets of " << bytes_text(param_bytes / static_cast<double>(o.best_buckets)) << "): "
    << seconds_text(o.best_overhead_s);
  return s.str();
}

}  // namespace stepscope
