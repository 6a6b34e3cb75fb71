// The memory snapshot importer on snapshots written in the test with hand-computed answers:
// blocks alive before recording and frees without allocs, no trace at all, the 2.0 and 1.13
// layouts; and files that are not snapshots: pickles that would run code, every truncation of
// the fixture, wrong types named by their path.
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
#include "io/pickle_writer.h"
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


using stepscope::testing::Block;
using stepscope::testing::entry;
using stepscope::testing::segment;

// Segment 0x1000: A (active, 512 bytes holding 100 requested), B (inactive), C (alive, allocated
// in the trace). Trace: X freed without an alloc (300), C allocated (200), D allocated (50) and
// freed. Hand replay: alive before recording A 100 + X 300 = 400; after each action 100, 300,
// 350, 300; the peak 350 is after D's alloc (entry 2), not the 400 before the first action.
std::string crafted_snapshot() {
  PickleBytes p;
  p.dict().key("segments").list();
  segment(p, 0x1000, {{512, 100, "active_allocated"}, {1024, 1024, "inactive"}, {512, 200, "active_allocated"}});
  p.end_list().key("device_traces").list().list();
  entry(p, "free_completed", 0x9000, 300, 10);
  entry(p, "alloc", 0x1000 + 512 + 1024, 200, 11);
  entry(p, "alloc", 0x8000, 50, 11);
  entry(p, "free_requested", 0x8000, 50, 12);
  entry(p, "free_completed", 0x8000, 50, 12);
  p.end_list().end_list().end_dict();
  return p.done();
}

std::string error_of(const std::string& bytes) {
  try {
    imports::parse_memory_snapshot(bytes);
  } catch (const MemorySnapshotError& e) {
    return e.what();
  }
  return "";
}

std::string error_path_of(const std::string& bytes) {
  try {
    imports::parse_memory_snapshot(bytes);
  } catch (const MemorySnapshotError& e) {
    return e.path();
  }
  return "(no error)";
}

}  // namespace

TEST(MemorySnapshotImport, BlocksAliveBeforeRecordingAndFreesWithoutAllocs) {
  const auto s = imports::parse_memory_snapshot(crafted_snapshot());
  const auto t = imports::build_snapshot_timeline(s, 0);
  EXPECT_EQ(t.before_recording_bytes, 400);  // A at its requested 100, X at its free's 300
  EXPECT_EQ(t.before_recording_allocations, 2u);
  EXPECT_EQ(t.peak_bytes, 350);
  EXPECT_EQ(t.peak_entry, 2);
  EXPECT_EQ(t.peak_time_us, 11);
  EXPECT_EQ(t.final_bytes, 300);
  ASSERT_EQ(t.largest_at_peak.size(), 3u);  // C 200, A 100, D 50
  EXPECT_EQ(t.allocations[t.largest_at_peak[0]].bytes, 200);
  EXPECT_EQ(t.allocations[t.largest_at_peak[1]].address, 0x1000u);
  EXPECT_EQ(t.allocations[t.largest_at_peak[2]].address, 0x8000u);
  // The segment view: 2048 reserved, 1024 allocated, the inactive 1024 free in one block.
  EXPECT_EQ(t.segments.totals.reserved_bytes, 2048);
  EXPECT_EQ(t.segments.totals.allocated_bytes, 1024);
  EXPECT_EQ(t.segments.totals.free_bytes, 1024);
  EXPECT_EQ(t.segments.totals.largest_free_block_bytes, 1024);
  EXPECT_EQ(imports::free_fragmentation(t.segments.totals), 0.0);

  const auto log = imports::to_allocation_log(s, t);
  const auto timeline = profiling::build_memory_timeline(log);
  ASSERT_NE(overall(timeline), nullptr);
  EXPECT_EQ(overall(timeline)->allocated_bytes, 350);
  EXPECT_EQ(timeline.baseline_bytes, 400);
  EXPECT_EQ(timeline.unknown_frees, 1u);
  EXPECT_EQ(timeline.points.back().allocated_bytes, 300);
  // Entries 1 and 2 share a microsecond: 11 us and 11 us + 1 ns.
  ASSERT_EQ(log.events.size(), 4u);
  EXPECT_EQ(log.events[1].time_ns, 11000);
  EXPECT_EQ(log.events[2].time_ns, 11001);
  // Frames are interned: one stack for every entry.
  EXPECT_EQ(s.stacks.stacks.size(), 2u);  // the empty stack and the user's
  EXPECT_EQ(s.stacks.frames.size(), 2u);
}

TEST(MemorySnapshotImport, NoTraceMeansThePeakIsWhatTheSegmentsHold) {
  PickleBytes p;
  p.dict().key("segments").list();
  segment(p, 0x1000, {{512, 100, "active_allocated"}, {512, 300, "active_allocated"}, {1024, 0, "inactive"}});
  p.end_list().key("device_traces").list().list().end_list().end_list().end_dict();
  const auto s = imports::parse_memory_snapshot(p.done());
  const auto t = imports::build_snapshot_timeline(s, 0);
  EXPECT_EQ(t.peak_bytes, 400);
  EXPECT_EQ(t.peak_entry, -1);
  EXPECT_EQ(t.largest_at_peak.size(), 2u);
  const auto timeline = profiling::build_memory_timeline(imports::to_allocation_log(s, t));
  ASSERT_NE(overall(timeline), nullptr);
  EXPECT_EQ(overall(timeline)->allocated_bytes, 400);
}

// PyTorch 2.0: no block address, requested_size or frames (their history has them), no time_us.
// PyTorch 1.13: the segments alone, as a list.
TEST(MemorySnapshotImport, OlderLayouts) {
  PickleBytes p;
  p.dict().key("segments").list();
  p.dict().field("device", 0).field("address", 0x4000).field("total_size", 2048).field("allocated_size", 2048);
  p.field("active_size", 2048).field("stream", 0).field("segment_type", "small").key("blocks").list();
  p.dict().field("size", 1536).field("state", "active_allocated").key("history").list();
  p.dict().field("addr", 0x4000).field("real_size", 1500).key("frames");
  p.frames("init", {{"__init__", "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py", 96}});
  p.end_dict().end_list().end_dict();
  p.dict().field("size", 512).field("state", "active_allocated").end_dict();
  p.end_list().end_dict().end_list();
  p.key("device_traces").list().list();
  p.dict().field("action", "alloc").field("addr", 0x7000).field("size", 64).field("stream", 0).end_dict();
  p.dict().field("action", "oom").field("device_free", 10).field("size", 1 << 30).field("stream", 0).end_dict();
  p.dict().field("action", "some_new_action").field("addr", 0).field("size", 0).end_dict();
  p.end_list().end_list().end_dict();
  const auto s = imports::parse_memory_snapshot(p.done());
  ASSERT_EQ(s.segments.size(), 1u);
  const auto& blocks = s.segments[0].blocks;
  EXPECT_EQ(blocks[0].address, 0x4000u);
  EXPECT_EQ(blocks[0].requested_size, 1500);
  EXPECT_EQ(s.stacks.frames[s.stacks.stacks[blocks[0].stack].at(0)].name, "__init__");
  EXPECT_EQ(blocks[1].address, 0x4000u + 1536);  // implied by the block before it
  EXPECT_EQ(blocks[1].requested_size, 512);
  EXPECT_EQ(blocks[1].stack, 0u);
  ASSERT_EQ(s.device_traces[0].size(), 3u);
  EXPECT_EQ(s.device_traces[0][0].time_us, -1);
  EXPECT_EQ(s.device_traces[0][1].action, imports::TraceAction::oom);
  EXPECT_EQ(imports::action_name(s, s.device_traces[0][2]), "some_new_action");
  const auto t = imports::build_snapshot_timeline(s, 0);
  EXPECT_EQ(t.before_recording_bytes, 1500 + 512);
  EXPECT_EQ(t.peak_bytes, 1500 + 512 + 64);
  const auto log = imports::to_allocation_log(s, t);
  ASSERT_EQ(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].time_ns, 0);  // no times: the entry's index

  PickleBytes old;
  old.list();
  old.dict().field("device", 0).field("address", 0x4000).field("total_size", 512).field("allocated_size", 512);
  old.field("active_size", 512).field("stream", 0).field("segment_type", "small").key("blocks").list();
  old.dict().field("size", 512).field("state", "active_allocated").end_dict();
  old.end_list().end_dict().end_list();
  const auto s113 = imports::parse_memory_snapshot(old.done());
  EXPECT_TRUE(s113.device_traces.empty());
  EXPECT_EQ(imports::build_snapshot_timeline(s113, 0).peak_bytes, 512);
}

TEST(MemorySnapshotImport, PicklesThatRunCodeAreRefused) {
  pickle::PickleWriter w;  // what torch.save writes first: a rebuild function for a tensor
  w.global("torch._utils", "_rebuild_tensor_v2");
  w.mark();
  w.integer(1);
  w.tuple();
  w.reduce();
  w.stop();
  const std::string message = error_of(w.bytes());
  EXPECT_NE(message.find("not a memory snapshot"), std::string::npos) << message;
  EXPECT_NE(message.find("torch._utils._rebuild_tensor_v2"), std::string::npos) << message;

  pickle::PickleWriter persistent;
  persistent.unicode("storage");
  persistent.binpersid();
  persistent.stop();
  EXPECT_NE(error_of(persistent.bytes()).find("not a memory snapshot"), std::string::npos);
}

TEST(MemorySnapshotImport, TruncatedFilesFailAtEveryLength) {
  const std::string whole = read_input_file(snapshot_data_path("torch_profiles/snapshot_cuda.pickle"), "a snapshot");
  for (size_t n = 0; n < whole.size(); n += 997) {
    const std::string message = error_of(whole.substr(0, n));
    ASSERT_FALSE(message.empty()) << n;
    EXPECT_NE(message.find("truncated"), std::string::npos) << n << ": " << message;
  }
  EXPECT_NE(error_of(whole.substr(0, whole.size() - 1)).find("truncated"), std::string::npos);
}

TEST(MemorySnapshotImport, WrongTypesNameTheirPath) {
  {
    PickleBytes p;  // entry 1's size is a string
    p.dict().key("segments").list().end_list().key("device_traces").list().list();
    entry(p, "alloc", 0x10, 8, 1);
    p.dict().field("action", "alloc").field("addr", 0x20).field("size", "eight").end_dict();
    p.end_list().end_list().end_dict();
    EXPECT_EQ(error_path_of(p.done()), "device_traces[0][1].size");
    EXPECT_NE(error_of(p.done()).find("device_traces[0][1].size: expected an int, found a str"), std::string::npos)
        << error_of(p.done());
  }
  {
    PickleBytes p;  // a block without its state
    p.dict().key("segments").list();
    p.dict().field("device", 0).field("address", 0x4000).field("total_size", 512).field("allocated_size", 0);
    p.field("active_size", 0).field("stream", 0).field("segment_type", "small").key("blocks").list();
    p.dict().field("size", 256).field("state", "inactive").end_dict();
    p.dict().field("size", 256).end_dict();
    p.end_list().end_dict().end_list().end_dict();
    EXPECT_EQ(error_path_of(p.done()), "segments[0].blocks[1].state");
    EXPECT_NE(error_of(p.done()).find("missing"), std::string::npos);
  }
  {
    PickleBytes p;  // a negative size
    p.dict().key("segments").list().end_list().key("device_traces").list().list();
    entry(p, "alloc", 0x10, -8, 1);
    p.end_list().end_list().end_dict();
    EXPECT_EQ(error_path_of(p.done()), "device_traces[0][0].size");
  }
  {
    PickleBytes p;  // a frame's line is None
    p.dict().key("segments").list().end_list().key("device_traces").list().list();
    p.dict().field("action", "alloc").field("addr", 0x10).field("size", 8).key("frames").list();
    p.dict().field("name", "f").field("filename", "g.py").key("line").none().end_dict();
    p.end_list().end_dict().end_list().end_list().end_dict();
    EXPECT_EQ(error_path_of(p.done()), "device_traces[0][0].frames[0].line");
  }
  PickleBytes not_dict;
  not_dict.integer(7);
  EXPECT_NE(error_of(not_dict.done()).find("not a memory snapshot"), std::string::npos);
  PickleBytes no_segments;
  no_segments.dict().field("weights", 1).end_dict();
  EXPECT_NE(error_of(no_segments.done()).find("no 'segments'"), std::string::npos);
  EXPECT_NE(error_of("PK\x03\x04 a zip file").find("not a memory snapshot"), std::string::npos);
  EXPECT_NE(error_of("hello, not a pickle").find("not a readable memory snapshot pickle"), std::string::npos);
}
