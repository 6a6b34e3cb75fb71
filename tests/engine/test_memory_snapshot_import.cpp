// The memory snapshot importer against tests/reference/memory_snapshot_summary.py, which replays
// the same file as memory_viz does with Python's pickle alone (its output for the committed
// fixture is snapshot_cuda.expected.json): counts, bytes alive before recording, the peak and
// its entry, the final bytes and the largest allocations at the peak, to the byte; the same peak
// through our own memory timeline builder; categories and frames; a million trace entries in
// time. Hand-computed crafted snapshots and bad files: test_memory_snapshot_crafted.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "imports/memory_snapshot.h"
#include "imports/memory_snapshot_timeline.h"
#include "imports/snapshot_frames.h"
#include "io/input_file.h"
#include "profiling/memory_timeline.h"
#include "snapshot_pickle_bytes.h"
#include "snapshot_test_support.h"

using namespace stepscope;
using imports::MemorySnapshotError;
using profiling::MemoryCategory;
using stepscope::testing::PickleBytes;
using stepscope::testing::overall;
using stepscope::testing::snapshot_data_path;

namespace {


const imports::MemorySnapshot& fixture() {
  static const imports::MemorySnapshot snapshot =
      imports::read_memory_snapshot(snapshot_data_path("torch_profiles/snapshot_cuda.pickle"));
  return snapshot;
}

}  // namespace


TEST(MemorySnapshotImport, FixtureMatchesThePythonReplay) {
  std::ifstream in(snapshot_data_path("torch_profiles/snapshot_cuda.expected.json"));
  const auto want = nlohmann::json::parse(in)["devices"];
  const auto& snapshot = fixture();
  ASSERT_EQ(imports::snapshot_devices(snapshot).size(), want.size());
  for (const auto& w : want) {
    const auto t = imports::build_snapshot_timeline(snapshot, w["device"].get<int>(), 5);
    EXPECT_EQ(t.alloc_entries, w["alloc"].get<uint64_t>());
    EXPECT_EQ(t.free_completed_entries, w["free_completed"].get<uint64_t>());
    EXPECT_EQ(t.before_recording_bytes, w["before_recording_bytes"].get<int64_t>());
    EXPECT_EQ(t.before_recording_allocations, w["before_recording_blocks"].get<uint64_t>());
    EXPECT_EQ(t.peak_bytes, w["peak_bytes"].get<int64_t>());
    EXPECT_EQ(t.peak_entry, w["peak_entry"].get<int64_t>());
    EXPECT_EQ(t.final_bytes, w["final_bytes"].get<int64_t>());
    ASSERT_EQ(t.largest_at_peak.size(), w["largest_at_peak"].size());
    for (size_t k = 0; k < t.largest_at_peak.size(); ++k) {
      const auto& a = t.allocations[t.largest_at_peak[k]];
      EXPECT_EQ(a.bytes, w["largest_at_peak"][k]["size"].get<int64_t>()) << k;
      EXPECT_EQ(a.address, w["largest_at_peak"][k]["address"].get<uint64_t>()) << k;
    }
  }
}

TEST(MemorySnapshotImport, AllocationLogGivesTheSamePeakThroughOurTimeline) {
  std::ifstream in(snapshot_data_path("torch_profiles/snapshot_cuda.expected.json"));
  const auto want = nlohmann::json::parse(in)["devices"][0];
  const auto t = imports::build_snapshot_timeline(fixture(), 0);
  const auto log = imports::to_allocation_log(fixture(), t);
  profiling::TimelineOptions options;
  options.device = 0;
  const auto timeline = profiling::build_memory_timeline(log, options);
  const auto* peak = overall(timeline);
  ASSERT_NE(peak, nullptr);
  EXPECT_EQ(peak->allocated_bytes, want["peak_bytes"].get<int64_t>());
  EXPECT_EQ(timeline.baseline_bytes, want["before_recording_bytes"].get<int64_t>());
  EXPECT_EQ(timeline.points.back().allocated_bytes, want["final_bytes"].get<int64_t>());
  EXPECT_EQ(timeline.points.size(), want["alloc"].get<size_t>() + want["free_completed"].get<size_t>());
  EXPECT_EQ(timeline.implicit_frees, 0u);
  // The segments' 88 MiB at the end were all reserved throughout: the trace has no segment event.
  EXPECT_EQ(timeline.peak_reserved_bytes, t.segments.totals.reserved_bytes);
  for (size_t i = 1; i < log.events.size(); ++i) ASSERT_GT(log.events[i].time_ns, log.events[i - 1].time_ns);
}

// The fixture's loop (make_torch_profile_fixtures.py) has 21 parameters and AdamW; three steps
// were recorded. Each step allocates 21 temporaries in _multi_tensor_adam under AdamW.step and
// frees them there; the gradients of steps 1 and 2 are allocated by autograd (no frames) and
// freed by zero_grad(set_to_none=True) in steps 2 and 3: 42 gradients. Nothing else is told.
TEST(MemorySnapshotImport, FixtureCategoriesFromFrames) {
  const auto t = imports::build_snapshot_timeline(fixture(), 0);
  std::map<MemoryCategory, int> count;
  for (const auto& a : t.allocations) ++count[a.category];
  EXPECT_EQ(count[MemoryCategory::temporary], 63);
  EXPECT_EQ(count[MemoryCategory::gradient], 42);
  EXPECT_EQ(count[MemoryCategory::optimizer_state], 0);
  EXPECT_EQ(count[MemoryCategory::parameter], 0);
  EXPECT_EQ(t.categorised_allocations, 105u);
  // At the peak (step 1's forward) nothing alive is told apart: all of it is unknown.
  EXPECT_EQ(t.peak_bytes_by_category[profiling::category_index(MemoryCategory::other)], t.peak_bytes);
}

TEST(MemorySnapshotImport, UserFramesFirst) {
  const auto& s = fixture();
  // The optimizer's temporaries: innermost _multi_tensor_adam in torch/optim/adam.py, then
  // torch internals up to the user's train_step (make_torch_profile_fixtures.py:63).
  const auto t = imports::build_snapshot_timeline(s, 0);
  const imports::SnapshotAllocation* temp = nullptr;
  for (const auto& a : t.allocations) {
    if (a.category == MemoryCategory::temporary) temp = &a;
  }
  ASSERT_NE(temp, nullptr);
  const auto& raw = s.stacks.stacks[temp->stack];
  EXPECT_EQ(s.stacks.frames[raw.front()].name, "_multi_tensor_adam");
  const auto order = imports::frames_user_first(s.stacks, temp->stack);
  ASSERT_EQ(order.size(), raw.size());
  const auto& first = s.stacks.frames[order.front()];
  EXPECT_EQ(first.name, "train_step");
  EXPECT_NE(first.filename.find("make_torch_profile_fixtures.py"), std::string::npos);
  EXPECT_EQ(first.line, 63);
}

// A long recording: 1000 allocations of 512 B to 1 MiB per round, each freed (requested and
// completed) after the round, until a million entries; 50 distinct stacks. Peak by construction:
// the block alive before recording plus one round's allocations.
TEST(MemorySnapshotImport, MillionTraceEntriesInTime) {
  const int kPerRound = 1000;
  auto size = [](int i) { return int64_t{512} << (i % 12); };
  PickleBytes p;
  p.dict().key("segments").list();
  segment(p, 0x10000000, {{4096, 4096, "active_allocated"}});
  p.end_list().key("device_traces").list().list();
  size_t entries = 0;
  int64_t time_us = 1'700'000'000'000'000;
  const std::vector<std::tuple<std::string, std::string, int>> model = {
      {"forward", "/home/me/model.py", 10}, {"_call_impl", "/venv/torch/nn/modules/module.py", 1790}};
  while (entries < 1'000'000) {
    for (int i = 0; i < kPerRound; ++i, ++entries) {
      p.dict().field("action", "alloc").field("addr", 0x20000000 + int64_t{i} * (1 << 24)).field("size", size(i));
      p.field("stream", 0).field("time_us", ++time_us).key("frames");
      auto frames = model;
      std::get<2>(frames[0]) = 10 + i % 50;
      p.frames("s" + std::to_string(i % 50), frames).end_dict();
    }
    for (int i = 0; i < kPerRound; ++i, entries += 2) {
      for (const char* action : {"free_requested", "free_completed"}) {
        p.dict().field("action", action).field("addr", 0x20000000 + int64_t{i} * (1 << 24)).field("size", size(i));
        p.field("stream", 0).field("time_us", ++time_us).key("frames").list().end_list().end_dict();
      }
    }
  }
  p.end_list().end_list().end_dict();
  const std::string bytes = p.done();
  int64_t round = 0;
  for (int i = 0; i < kPerRound; ++i) round += size(i);

  const auto start = std::chrono::steady_clock::now();
  const auto s = imports::parse_memory_snapshot(bytes);
  const auto parsed = std::chrono::steady_clock::now();
  const auto t = imports::build_snapshot_timeline(s, 0);
  const auto log = imports::to_allocation_log(s, t);
  const auto end = std::chrono::steady_clock::now();
  const double parse_s = std::chrono::duration<double>(parsed - start).count();
  const double total_s = std::chrono::duration<double>(end - start).count();
  std::printf("memory snapshot import: %zu trace entries (%.1f MB of pickle): parse %.3f s, parse + timeline + "
              "allocation log %.3f s\n",
              entries, static_cast<double>(bytes.size()) / 1e6, parse_s, total_s);
  ASSERT_EQ(s.device_traces[0].size(), entries);
  EXPECT_EQ(s.stacks.stacks.size(), 51u);  // 50 and the empty one
  EXPECT_EQ(t.peak_bytes, 4096 + round);
  EXPECT_EQ(t.final_bytes, 4096);
  EXPECT_EQ(log.events.size(), entries / 3 * 2);
  EXPECT_LT(total_s, 2.0);
}
