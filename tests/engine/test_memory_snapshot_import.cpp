// The memory snapshot importer against tests/reference/memory_snapshot_summary.py, which replays
// the same file as memory_viz does with Python's pickle alone (its output for the committed
// fixture is snapshot_cuda.expected.json): counts, bytes alive before recording, the peak and
// its entry, the final bytes and the largest allocations at the peak, to the byte. Then the
// same peak through our own memory timeline builder, hand-computed crafted snapshots (blocks
// alive before recording, frees without allocs, the 2.0 and 1.13 layouts), files that are not
// snapshots, and a million trace entries in time.
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

using namespace stepscope;
using imports::MemorySnapshotError;
using profiling::MemoryCategory;

namespace {

std::string data_path(const std::string& relative) { return std::string(STEPSCOPE_TEST_DATA_DIR) + "/" + relative; }

const imports::MemorySnapshot& fixture() {
  static const imports::MemorySnapshot snapshot =
      imports::read_memory_snapshot(data_path("torch_profiles/snapshot_cuda.pickle"));
  return snapshot;
}

// Pickle opcodes for plain data, as Python's pickler writes them: keys and frame stacks are
// memoized once and fetched again, like the repeated strings and frame lists of a real snapshot.
class PickleBytes {
 public:
  PickleBytes() { out_ += "\x80\x02"; }
  PickleBytes& dict() { return op("}(", 2); }    // EMPTY_DICT MARK; then key, value, ...; end()
  PickleBytes& end_dict() { return op("u", 1); }  // SETITEMS
  PickleBytes& list() { return op("](", 2); }    // EMPTY_LIST MARK; then items; end_list()
  PickleBytes& end_list() { return op("e", 1); }  // APPENDS
  PickleBytes& str(const std::string& s) {
    out_ += 'X';
    le(s.size(), 4);
    out_ += s;
    return *this;
  }
  PickleBytes& key(const std::string& k) {  // a memoized string
    auto it = memo_.find(k);
    if (it != memo_.end()) return get(it->second);
    str(k);
    return put(k);
  }
  PickleBytes& integer(int64_t v) {
    out_ += '\x8a';  // LONG1, 8 bytes
    out_ += '\x08';
    le(static_cast<uint64_t>(v), 8);
    return *this;
  }
  PickleBytes& none() { return op("N", 1); }
  PickleBytes& field(const std::string& k, int64_t v) { return key(k).integer(v); }
  PickleBytes& field(const std::string& k, const std::string& v) { return key(k).key(v); }
  // A frames list, memoized under `name` after its first use.
  PickleBytes& frames(const std::string& name, const std::vector<std::tuple<std::string, std::string, int>>& frames) {
    auto it = memo_.find("frames:" + name);
    if (it != memo_.end()) return get(it->second);
    list();
    for (const auto& [function, file, line] : frames) {
      dict().field("name", function).field("filename", file).field("line", line).end_dict();
    }
    end_list();
    return put("frames:" + name);
  }
  std::string done() { return out_ + "."; }
  std::string& raw() { return out_; }

 private:
  PickleBytes& op(const char* bytes, size_t n) {
    out_.append(bytes, n);
    return *this;
  }
  void le(uint64_t v, int n) {
    for (int k = 0; k < n; ++k) out_ += static_cast<char>((v >> (8 * k)) & 0xff);
  }
  PickleBytes& put(const std::string& name) {
    const uint64_t index = memo_.size();
    memo_[name] = index;
    out_ += 'r';  // LONG_BINPUT
    le(index, 4);
    return *this;
  }
  PickleBytes& get(uint64_t index) {
    out_ += 'j';  // LONG_BINGET
    le(index, 4);
    return *this;
  }
  std::string out_;
  std::map<std::string, uint64_t> memo_;
};

struct Block {
  int64_t size, requested;
  const char* state;
};

void segment(PickleBytes& p, uint64_t address, const std::vector<Block>& blocks) {
  int64_t total = 0, allocated = 0;
  for (const Block& b : blocks) {
    total += b.size;
    if (std::string(b.state) == "active_allocated") allocated += b.size;
  }
  p.dict().field("device", 0).field("address", static_cast<int64_t>(address)).field("total_size", total);
  p.field("allocated_size", allocated).field("active_size", allocated).field("stream", 0);
  p.field("segment_type", "large").key("blocks").list();
  uint64_t at = address;
  for (const Block& b : blocks) {
    p.dict().field("address", static_cast<int64_t>(at)).field("size", b.size).field("requested_size", b.requested);
    p.field("state", b.state).key("frames").list().end_list().end_dict();
    at += static_cast<uint64_t>(b.size);
  }
  p.end_list().end_dict();
}

void entry(PickleBytes& p, const char* action, uint64_t address, int64_t size, int64_t time_us) {
  p.dict().field("action", action).field("addr", static_cast<int64_t>(address)).field("size", size);
  p.field("stream", 0).field("time_us", time_us).key("frames");
  p.frames("user", {{"forward", "/home/me/model.py", 12},
                    {"_call_impl", "/x/site-packages/torch/nn/modules/module.py", 1790}});
  p.end_dict();
}

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

const profiling::MemoryPeak* overall(const profiling::MemoryTimeline& t) {
  for (const auto& p : t.peaks) {
    if (p.label == "overall") return &p;
  }
  return nullptr;
}

}  // namespace

TEST(MemorySnapshotImport, FixtureMatchesThePythonReplay) {
  std::ifstream in(data_path("torch_profiles/snapshot_cuda.expected.json"));
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
  std::ifstream in(data_path("torch_profiles/snapshot_cuda.expected.json"));
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
  const std::string whole = read_input_file(data_path("torch_profiles/snapshot_cuda.pickle"), "a snapshot");
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
