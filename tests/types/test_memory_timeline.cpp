// Memory timeline rules against hand-computed logs (see memory_timeline.h for the rules).
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

TEST(MemoryTimeline, CategoryNames) {
  std::vector<std::string> names;
  for (C c : all_memory_categories()) names.push_back(to_string(c));
  EXPECT_EQ(names, (std::vector<std::string>{"parameter", "gradient", "optimizer state", "activation", "temporary",
                                             "input", "other"}));
  for (C c : all_memory_categories()) EXPECT_LT(category_index(c), kMemoryCategoryCount);
}

TEST(MemoryTimeline, CategoriesAtEachPoint) {
  const MemoryTimeline t = build_memory_timeline(training_step_log());
  ASSERT_EQ(t.points.size(), 19u);
  const std::vector<int64_t> totals{1000, 1100, 1107, 1107, 1507, 1807, 1507, 1707, 2707, 2307,
                                    2357, 2307, 2107, 3107, 4107, 4607, 4107, 4007, 4307};
  for (size_t i = 0; i < totals.size(); ++i) {
    int64_t sum = 0;
    for (int64_t v : t.points[i].bytes_by_category) sum += v;
    EXPECT_EQ(t.points[i].allocated_bytes, totals[i]) << i;
    EXPECT_EQ(sum, totals[i]) << i;
  }
  EXPECT_EQ(t.points[2].bytes_by_category, bytes({{C::parameter, 1000}, {C::input, 100}, {C::other, 7}}));
  EXPECT_EQ(at(t.points[5], C::activation), 400);  // alive at the backward mark
  EXPECT_EQ(at(t.points[5], C::temporary), 300);   // freed within forward
  EXPECT_EQ(at(t.points[7], C::activation), 600);
  // The gradient is labelled after backward, yet counts as gradient from its allocation.
  EXPECT_EQ(t.points[8].bytes_by_category, bytes({{C::parameter, 1000}, {C::gradient, 1000}, {C::activation, 600},
                                                   {C::input, 100}, {C::other, 7}}));
  EXPECT_EQ(at(t.points[10], C::temporary), 50);
  EXPECT_EQ(at(t.points[12], C::activation), 0);
  EXPECT_EQ(at(t.points[14], C::optimizer_state), 2000);
  EXPECT_EQ(at(t.points[15], C::temporary), 500);
  // Address 0x5000: temporary in forward, later an input.
  EXPECT_EQ(at(t.points[17], C::input), 0);
  EXPECT_EQ(at(t.points[18], C::input), 300);
  EXPECT_EQ(at(t.points[18], C::temporary), 0);
  EXPECT_EQ(t.points[0].band, -1);
  EXPECT_EQ(t.points[4].band, 0);
  EXPECT_EQ(t.points[18].band, 3);
  EXPECT_EQ(t.points[18].time_ns, 420);
  EXPECT_EQ(t.unknown_frees, 1u);
  EXPECT_EQ(t.unknown_freed_bytes, 500);
  EXPECT_EQ(t.unmatched_labels, 1u);
  EXPECT_EQ(t.implicit_frees, 0u);
  EXPECT_FALSE(t.truncated);
}

TEST(MemoryTimeline, Bands) {
  const MemoryTimeline t = build_memory_timeline(training_step_log());
  ASSERT_EQ(t.bands.size(), 4u);
  const std::vector<std::string> phases{"forward", "backward", "optimizer step", "step end"};
  const std::vector<int64_t> ends{200, 300, 400, 420};  // the last ends with the log
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(t.bands[i].phase, phases[i]);
    EXPECT_TRUE(t.bands[i].step == 0 && !t.bands[i].warmup);
    EXPECT_EQ(t.bands[i].start_ns, 100 * static_cast<int64_t>(i + 1));
    EXPECT_EQ(t.bands[i].end_ns, ends[i]);
  }
}

void expect_peak(const MemoryTimeline& t, const std::string& label, int64_t time, int64_t allocated,
                 const CategoryBytes& breakdown, int step) {
  const MemoryPeak* p = find_peak(t, label);
  ASSERT_NE(p, nullptr) << label;
  EXPECT_EQ(p->time_ns, time) << label;
  EXPECT_EQ(p->allocated_bytes, allocated) << label;
  EXPECT_EQ(p->bytes_by_category, breakdown) << label;
  EXPECT_EQ(p->step, step) << label;
}

TEST(MemoryTimeline, Peaks) {
  const MemoryTimeline t = build_memory_timeline(training_step_log());
  EXPECT_EQ(peak_labels(t), (std::vector<std::string>{"after model initialisation", "forward", "backward",
                                              "before optimizer step", "optimizer step", "after optimizer step",
                                              "overall"}));
  const std::pair<C, int64_t> p{C::parameter, 1000}, in{C::input, 100}, o{C::other, 7}, g{C::gradient, 1000};
  expect_peak(t, "after model initialisation", 35, 1107, bytes({p, in, o}), -1);
  expect_peak(t, "forward", 120, 1807, bytes({p, {C::activation, 400}, {C::temporary, 300}, in, o}), 0);
  expect_peak(t, "backward", 210, 2707, bytes({p, g, {C::activation, 600}, in, o}), 0);
  expect_peak(t, "before optimizer step", 250, 2107, bytes({p, g, in, o}), 0);
  expect_peak(t, "optimizer step", 330, 4607,
              bytes({p, g, {C::optimizer_state, 2000}, {C::temporary, 500}, in, o}), 0);
  expect_peak(t, "after optimizer step", 340, 4107, bytes({p, g, {C::optimizer_state, 2000}, in, o}), 0);
  expect_peak(t, "overall", 330, 4607, bytes({p, g, {C::optimizer_state, 2000}, {C::temporary, 500}, in, o}), 0);
}

TEST(MemoryTimeline, LargestAllocationsGrouped) {
  TimelineOptions options;
  options.largest_count = 6;
  const MemoryTimeline t = build_memory_timeline(training_step_log(), options);
  ASSERT_EQ(t.largest.size(), 6u);
  auto expect = [&](size_t i, int64_t b, int64_t count, C c, const std::string& phase) {
    EXPECT_EQ(t.largest[i].bytes, b) << i;
    EXPECT_EQ(t.largest[i].count, count) << i;
    EXPECT_EQ(t.largest[i].category, c) << i;
    EXPECT_EQ(t.largest[i].phase, phase) << i;
  };
  expect(0, 1000, 2, C::optimizer_state, "optimizer step");  // equal bytes: higher count first
  expect(1, 1000, 1, C::parameter, "");
  expect(2, 1000, 1, C::gradient, "backward");
  expect(3, 500, 1, C::temporary, "optimizer step");
  expect(4, 400, 1, C::activation, "forward");
  expect(5, 300, 1, C::temporary, "softmax");  // same bytes as the input at 0x5000
  EXPECT_EQ(build_memory_timeline(training_step_log()).largest.size(), 11u);
}

TEST(MemoryTimeline, WarmupExcludedFromPeaksAndLargest) {
  LogBuilder b;
  b.alloc(1, 0x1, 10).label(2, 0x1, C::parameter);
  b.mark(10, "forward", 0, true).alloc(11, 0x2, 5000).free(12, 0x2, 5000);
  b.mark(20, "backward", 0, true).mark(30, "optimizer step", 0, true).alloc(31, 0x3, 20);
  b.label(32, 0x3, C::optimizer_state).mark(40, "step end", 0, true);
  // Measured steps restart at 0.
  b.mark(50, "forward", 0).alloc(51, 0x2, 700).free(52, 0x2, 700);
  b.mark(60, "backward", 0).alloc(61, 0x4, 30).free(62, 0x4, 30);
  b.mark(70, "optimizer step", 0).alloc(71, 0x5, 40).free(72, 0x5, 40).mark(80, "step end", 0);

  const MemoryTimeline all = build_memory_timeline(b.log);
  EXPECT_EQ(find_peak(all, "forward")->allocated_bytes, 5010);
  EXPECT_TRUE(find_peak(all, "forward")->warmup);
  EXPECT_EQ(find_peak(all, "before optimizer step")->time_ns, 12);
  EXPECT_EQ(find_peak(all, "after optimizer step")->time_ns, 31);

  TimelineOptions measured;
  measured.include_warmup = false;
  const MemoryTimeline t = build_memory_timeline(b.log, measured);
  EXPECT_EQ(find_peak(t, "after model initialisation")->allocated_bytes, 10);
  EXPECT_EQ(find_peak(t, "forward")->allocated_bytes, 730);
  EXPECT_FALSE(find_peak(t, "forward")->warmup);
  EXPECT_EQ(find_peak(t, "backward")->allocated_bytes, 60);
  EXPECT_EQ(find_peak(t, "before optimizer step")->time_ns, 62);
  EXPECT_EQ(find_peak(t, "after optimizer step")->time_ns, 72);
  EXPECT_EQ(find_peak(t, "after optimizer step")->allocated_bytes, 30);
  EXPECT_EQ(find_peak(t, "overall")->allocated_bytes, 5010);  // the whole log
  ASSERT_FALSE(t.largest.empty());
  EXPECT_EQ(t.largest[0].bytes, 700);  // the warm-up's 5000 is left out
  EXPECT_EQ(t.largest.size(), 4u);     // 10 (before any step), 700, 30, 40
}

TEST(MemoryTimeline, ForwardOnlyHasNoActivationsOrOptimizerPeaks) {
  LogBuilder b;
  b.alloc(1, 0x1, 10).label(2, 0x1, C::parameter);
  b.mark(10, "forward", 0).alloc(11, 0x2, 50).alloc(12, 0x3, 20).free(13, 0x3, 20).free(14, 0x2, 50);
  b.mark(20, "step end", 0);
  const MemoryTimeline t = build_memory_timeline(b.log);
  EXPECT_EQ(at(t.points[1], C::temporary), 50);
  EXPECT_EQ(at(t.points[1], C::activation), 0);
  EXPECT_EQ(peak_labels(t), (std::vector<std::string>{"after model initialisation", "forward", "overall"}));
  EXPECT_EQ(find_peak(t, "forward")->allocated_bytes, 80);
}

// A cuBLAS workspace is allocated in the first forward pass and kept: it is neither that
// step's activation (though live at its backward mark) nor a temporary.
TEST(MemoryTimeline, BlocksOutlivingTheirStepAreOther) {
  LogBuilder b;
  b.mark(10, "forward", 0, true).alloc(11, 0x1, 64).alloc(12, 0x2, 30).alloc(13, 0x3, 5);
  b.mark(20, "backward", 0, true).free(21, 0x2, 30).free(22, 0x3, 5).alloc(23, 0x4, 7);
  b.mark(30, "step end", 0, true);
  b.mark(40, "forward", 1).alloc(41, 0x5, 9);  // step 1 never ends: its block stays temporary
  const MemoryTimeline t = build_memory_timeline(b.log);
  EXPECT_EQ(t.points[2].bytes_by_category, bytes({{C::other, 64}, {C::activation, 35}}));
  EXPECT_EQ(t.points[5].bytes_by_category, bytes({{C::other, 71}}));
  EXPECT_EQ(t.points[6].bytes_by_category, bytes({{C::other, 71}, {C::temporary, 9}}));
}

// Memory allocated before recording counts from the start as other, for the chosen device,
// and frees of it come out of it.
TEST(MemoryTimeline, BaselineCountsAsOtherUntilFreed) {
  LogBuilder b;
  b.log.baselines = {{0, 0, 1000}, {0, 1, 5000}};
  b.alloc(1, 0x1, 10).free(2, 0x99, 400).free(3, 0x98, 900);
  TimelineOptions device0;
  device0.device = 0;
  const MemoryTimeline t = build_memory_timeline(b.log, device0);
  EXPECT_EQ(t.baseline_bytes, 1000);
  EXPECT_EQ(t.points[0].allocated_bytes, 1010);
  EXPECT_EQ(t.points[1].bytes_by_category, bytes({{C::other, 610}}));
  EXPECT_EQ(t.points[2].bytes_by_category, bytes({{C::other, 10}})) << "only 600 of the baseline was left";
  EXPECT_EQ(t.unknown_freed_bytes, 1300);
  EXPECT_EQ(build_memory_timeline(b.log).baseline_bytes, 6000) << "every device";
}

TEST(MemoryTimeline, NoStepsMeansOther) {
  LogBuilder b;
  b.alloc(1, 0x1, 10).alloc(2, 0x2, 20).free(3, 0x1, 10);
  const MemoryTimeline t = build_memory_timeline(b.log);
  EXPECT_EQ(t.points[1].bytes_by_category, bytes({{C::other, 30}}));
  EXPECT_TRUE(t.bands.empty());
  ASSERT_EQ(t.peaks.size(), 1u);
  EXPECT_EQ(t.peaks[0].label, "overall");
  EXPECT_TRUE(build_memory_timeline(AllocationLog{}).peaks.empty());
}

TEST(MemoryTimeline, EqualTimesAndUnsortedInput) {
  LogBuilder b;
  // Out of order; at equal times: mark, then events in log order, then labels.
  b.alloc(20, 0x2, 5).label(20, 0x2, C::input);
  b.mark(20, "forward", 0);
  b.alloc(10, 0x1, 7).free(10, 0x1, 7).alloc(10, 0x1, 9);
  b.mark(30, "backward", 0).free(30, 0x2, 5);
  const MemoryTimeline t = build_memory_timeline(b.log);
  ASSERT_EQ(t.points.size(), 5u);
  EXPECT_EQ(t.points[1].allocated_bytes, 0);  // alloc, free, alloc at 10 kept their order
  EXPECT_EQ(t.points[2].allocated_bytes, 9);
  EXPECT_EQ(t.points[3].band, 0);                 // the mark at 20 came first
  EXPECT_EQ(at(t.points[3], C::input), 5);        // the label at 20 saw the allocation
  EXPECT_EQ(t.points[4].band, 1);
  EXPECT_EQ(t.points[4].allocated_bytes, 9);
  EXPECT_EQ(find_peak(t, "after model initialisation")->allocated_bytes, 9);
}

TEST(MemoryTimeline, ActivationNeedsLifeAtTheBackwardMark) {
  LogBuilder b;
  b.mark(10, "forward", 0).alloc(11, 0x1, 8).alloc(12, 0x2, 4);
  b.mark(20, "backward", 0).free(20, 0x1, 8).free(21, 0x2, 4);  // freed at the mark's time: after it
  b.mark(30, "forward", 1).alloc(31, 0x3, 2).free(32, 0x3, 2).mark(40, "backward", 1);
  const MemoryTimeline t = build_memory_timeline(b.log);
  EXPECT_EQ(at(t.points[1], C::activation), 12);
  EXPECT_EQ(at(t.points[4], C::temporary), 2);
}

TEST(MemoryTimeline, AllocationOverLiveAddressEndsTheOldBlock) {
  LogBuilder b;
  b.alloc(1, 0x1, 100).label(2, 0x1, C::parameter).alloc(3, 0x1, 30).free(4, 0x1, 30);
  const MemoryTimeline t = build_memory_timeline(b.log);
  EXPECT_EQ(t.implicit_frees, 1u);
  EXPECT_EQ(t.points[1].bytes_by_category, bytes({{C::other, 30}}));
  EXPECT_EQ(t.points[2].allocated_bytes, 0);
}

TEST(MemoryTimeline, LastLabelWinsAndDeviceFilter) {
  LogBuilder b;
  b.alloc(1, 0x1, 100).label(2, 0x1, C::activation).label(3, 0x1, C::parameter);
  b.log.events.push_back({4, 0x2, 50, -1, -1, 0, "", -1, false});  // CPU
  b.alloc(5, 0x3, 10, 4096);
  TimelineOptions cuda;
  cuda.device = 0;
  const MemoryTimeline t = build_memory_timeline(b.log, cuda);
  ASSERT_EQ(t.points.size(), 2u);
  EXPECT_EQ(t.points[1].bytes_by_category, bytes({{C::parameter, 100}, {C::other, 10}}));
  EXPECT_EQ(t.points[1].reserved_bytes, 4096);
  EXPECT_EQ(t.points[0].reserved_bytes, -1);
  EXPECT_EQ(t.peak_reserved_bytes, 4096);
  EXPECT_EQ(build_memory_timeline(b.log).points.size(), 3u);
}

// Rule 8 with the CUDA caching allocator's sizes for the xl model's tensors: a 1600 x 6400
// fp32 weight (40,960,000 bytes) gets a segment rounded up to 2 MiB, 41,943,040, and the
// remainder (under 1 MiB) stays in its block; a 1600 x 1600 weight (10,240,000) that takes the
// second half of a 20 MiB segment keeps that segment's last 491,520 bytes; a 1600-float norm
// weight (6,400) becomes a 512-byte multiple, 6,656.
TEST(MemoryTimeline, TensorBytesSeparateTheAllocatorsRounding) {
  LogBuilder b;
  b.alloc(1, 0x1, 41943040).label(2, 0x1, C::parameter, 40960000);
  b.alloc(3, 0x2, 10731520).label(4, 0x2, C::parameter, 10240000);
  b.alloc(5, 0x3, 6656).label(6, 0x3, C::parameter, 6400);
  b.mark(10, "forward", 0).alloc(11, 0x10, 4096).mark(20, "backward", 0);
  b.alloc(21, 0x4, 6656).label(22, 0x4, C::gradient, 6400);  // a gradient, freed and made again larger
  b.free(23, 0x4, 6656).alloc(24, 0x5, 10731520).label(25, 0x5, C::gradient, 10240000);
  b.free(26, 0x10, 4096).mark(30, "step end", 0);
  const MemoryTimeline t = build_memory_timeline(b.log);
  const CategoryBytes highest = highest_by_category(t);
  EXPECT_EQ(highest[category_index(C::parameter)], 41943040 + 10731520 + 6656);
  EXPECT_EQ(t.highest_tensor_bytes_by_category[category_index(C::parameter)], 40960000 + 10240000 + 6400);
  EXPECT_EQ(highest[category_index(C::gradient)], 10731520);
  EXPECT_EQ(t.highest_tensor_bytes_by_category[category_index(C::gradient)], 10240000);
  EXPECT_EQ(highest[category_index(C::activation)], 4096);
  EXPECT_EQ(t.highest_tensor_bytes_by_category[category_index(C::activation)], -1);  // no sizes given
  EXPECT_EQ(t.highest_tensor_bytes_by_category[category_index(C::optimizer_state)], -1);
}

TEST(MemoryTimeline, TensorBytesNeverExceedTheBlockAndUnsizedLabelsCountBlocks) {
  LogBuilder b;
  b.alloc(1, 0x1, 512).label(2, 0x1, C::parameter, 4096);  // a view's storage larger than its block: capped
  b.alloc(3, 0x2, 1024).label(4, 0x2, C::parameter);      // no size: its block counts
  const MemoryTimeline t = build_memory_timeline(b.log);
  EXPECT_EQ(t.highest_tensor_bytes_by_category[category_index(C::parameter)], 512 + 1024);
}

}  // namespace
}  // namespace stepscope::profiling
