// Queries over a built timeline's points: decimation for drawing (rule in memory_timeline.h)
// and each category's highest bytes (rule 8).
#include <algorithm>

#include "profiling/memory_timeline.h"

namespace stepscope::profiling {

std::vector<MemoryPoint> decimate(const std::vector<MemoryPoint>& points, size_t max_points) {
  const size_t n = points.size();
  if (n <= max_points) return points;
  if (max_points == 0) return {};

  // The first point in [from, to) that no other beats.
  auto best = [&](size_t from, size_t to, auto better) {
    size_t found = from;
    for (size_t i = from + 1; i < to; ++i) {
      if (better(points[i], points[found])) found = i;
    }
    return found;
  };
  auto higher = [](const MemoryPoint& a, const MemoryPoint& b) { return a.allocated_bytes > b.allocated_bytes; };
  auto lower = [](const MemoryPoint& a, const MemoryPoint& b) { return a.allocated_bytes < b.allocated_bytes; };

  std::vector<size_t> keep;
  auto must = [&](size_t i) {
    if (std::find(keep.begin(), keep.end(), i) == keep.end()) keep.push_back(i);
  };
  must(best(0, n, higher));
  must(0);
  must(n - 1);
  for (size_t c = 0; c < kMemoryCategoryCount; ++c) {
    must(best(0, n, [c](const MemoryPoint& a, const MemoryPoint& b) {
      return a.bytes_by_category[c] > b.bytes_by_category[c];
    }));
  }
  if (keep.size() >= max_points) {
    keep.resize(max_points);
  } else {
    const size_t buckets = (max_points - keep.size()) / 2;
    for (size_t b = 0; b < buckets; ++b) {
      const size_t from = n * b / buckets, to = n * (b + 1) / buckets;
      if (from >= to) continue;
      keep.push_back(best(from, to, higher));
      keep.push_back(best(from, to, lower));
    }
  }
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());

  std::vector<MemoryPoint> out;
  out.reserve(keep.size());
  for (size_t i : keep) out.push_back(points[i]);
  return out;
}

CategoryBytes highest_by_category(const MemoryTimeline& timeline) {
  CategoryBytes highest{};
  for (const auto& point : timeline.points) {
    for (size_t k = 0; k < highest.size(); ++k) highest[k] = std::max(highest[k], point.bytes_by_category[k]);
  }
  return highest;
}

}  // namespace stepscope::profiling
