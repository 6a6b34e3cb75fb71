// The memory timeline at scale: the event limit, peak-preserving decimation, a million events.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "memory_timeline_fixtures.h"
#include "profiling/memory_timeline.h"

namespace stepscope::profiling {
namespace {

using namespace timeline_test;

TEST(MemoryTimeline, EventLimitPassedThrough) {
  AllocationLog log = training_step_log();
  log.event_limit = 19;
  log.dropped_events = 42;
  const MemoryTimeline t = build_memory_timeline(log);
  EXPECT_TRUE(t.truncated);
  EXPECT_EQ(t.dropped_events, 42u);
  EXPECT_EQ(t.event_limit, 19);
}

std::vector<MemoryPoint> sawtooth(size_t n) {
  std::vector<MemoryPoint> points(n);
  for (size_t i = 0; i < n; ++i) {
    points[i].time_ns = static_cast<int64_t>(i);
    points[i].allocated_bytes = static_cast<int64_t>(i % 10);
  }
  points[537].allocated_bytes = 1000;
  points[301].bytes_by_category[category_index(C::gradient)] = 50;  // mid-tooth: no bucket extreme
  points[302].bytes_by_category[category_index(C::gradient)] = 50;
  return points;
}

bool has_time(const std::vector<MemoryPoint>& points, int64_t t) {
  return std::any_of(points.begin(), points.end(), [t](const MemoryPoint& p) { return p.time_ns == t; });
}

TEST(MemoryTimeline, DecimateKeepsPeaksWithinBudget) {
  const auto points = sawtooth(1000);
  const auto kept = decimate(points, 100);
  EXPECT_LE(kept.size(), 100u);
  EXPECT_GT(kept.size(), 80u);
  for (int64_t t : {0, 999, 537, 301}) EXPECT_TRUE(has_time(kept, t)) << t;
  EXPECT_FALSE(has_time(kept, 302));  // only the first point at the category's maximum
  for (size_t i = 1; i < kept.size(); ++i) EXPECT_LT(kept[i - 1].time_ns, kept[i].time_ns);
  int lows = 0;
  for (const auto& p : kept) lows += p.allocated_bytes == 0;
  EXPECT_GT(lows, 30);  // falls show
}

TEST(MemoryTimeline, DecimateSmallBudgets) {
  const auto points = sawtooth(1000);
  EXPECT_EQ(decimate(points, 1000).size(), 1000u);
  EXPECT_TRUE(decimate(points, 0).empty());
  const auto one = decimate(points, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].time_ns, 537);
  std::vector<int64_t> times;
  for (const auto& p : decimate(points, 3)) times.push_back(p.time_ns);
  EXPECT_EQ(times, (std::vector<int64_t>{0, 537, 999}));  // the maximum first, then first and last
  EXPECT_LE(decimate(points, 5).size(), 5u);
}

// A guard against accidental quadratic work; the real measurement is reported elsewhere.
TEST(MemoryTimeline, MillionEventsWellUnderASecond) {
  LogBuilder b;
  int64_t t = 0;
  for (uint64_t p = 0; p < 200; ++p) {
    ++t;
    b.alloc(t, 0x10000000 + p * 4096, 4096).label(t, 0x10000000 + p * 4096, C::parameter);
  }
  auto size = [](uint64_t i) { return 512 + static_cast<int64_t>(i % 7) * 64; };
  for (int step = 0; b.log.events.size() < 1000000; ++step) {
    b.mark(++t, "forward", step, step < 5).phase = "forward";
    for (uint64_t i = 0; i < 2000; ++i) {
      b.alloc(++t, 0x20000000 + i * 512, size(i));
      if (i % 2) b.free(++t, 0x20000000 + i * 512, size(i));  // odd ones are temporaries
    }
    b.mark(++t, "backward", step, step < 5).phase = "backward";
    for (uint64_t i = 0; i < 2000; i += 2) b.free(++t, 0x20000000 + i * 512, size(i));
    b.mark(t + 1, "optimizer step", step, step < 5).mark(t + 2, "step end", step, step < 5);
    t += 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const MemoryTimeline timeline = build_memory_timeline(b.log);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("build_memory_timeline: %zu events in %.3f s\n", b.log.events.size(), seconds);
  EXPECT_EQ(timeline.points.size(), b.log.events.size());
  int64_t saved = 0;  // the even allocations of a forward pass
  for (uint64_t i = 0; i < 2000; i += 2) saved += size(i);
  EXPECT_EQ(at(*find_peak(timeline, "forward"), C::activation), saved);
  EXPECT_LT(seconds, 1.0);
}

}  // namespace
}  // namespace stepscope::profiling
