#include "core/phase_stats.h"

#include <algorithm>
#include <cmath>

namespace stepscope {

PhaseStats summarize_ns(const std::vector<int64_t>& durations_ns) {
  PhaseStats stats;
  stats.count = static_cast<int>(durations_ns.size());
  if (durations_ns.empty()) return stats;
  std::vector<double> ms;
  ms.reserve(durations_ns.size());
  for (int64_t ns : durations_ns) ms.push_back(static_cast<double>(ns) * 1e-6);
  std::sort(ms.begin(), ms.end());
  double sum = 0;
  for (double x : ms) sum += x;
  stats.mean_ms = sum / ms.size();
  double squares = 0;
  for (double x : ms) squares += (x - stats.mean_ms) * (x - stats.mean_ms);
  stats.std_ms = ms.size() > 1 ? std::sqrt(squares / (ms.size() - 1)) : 0.0;
  stats.min_ms = ms.front();
  stats.max_ms = ms.back();
  const size_t mid = ms.size() / 2;
  stats.median_ms = ms.size() % 2 == 1 ? ms[mid] : 0.5 * (ms[mid - 1] + ms[mid]);
  return stats;
}

}  // namespace stepscope
