// A PyTorch CUDA memory snapshot (torch.cuda.memory._snapshot(), pickled by _dump_snapshot()) as
// plain data: the allocator's segments and blocks when it was taken, and per device the trace of
// allocator events recorded since _record_memory_history(). Python stack frames are stored once
// (a snapshot repeats the same stacks thousands of times) and referred to by index.
//
// Versions read:
// - PyTorch 2.x: a dict with "segments" and "device_traces" (other keys, such as
//   allocator_settings and external_annotations, are skipped);
// - PyTorch 2.0: the same without time_us, requested_size and block addresses; a block's frames
//   and requested size are in its "history" (taken from its first entry, as memory_viz does);
// - PyTorch 1.13: a bare list of segments (1.13 records no trace).
// Fields, and which are required (a missing or mistyped one is an error naming its path, such as
// "device_traces[0][12].size"):
//   segment: device, address, total_size, allocated_size, active_size, stream, segment_type,
//            blocks (required); requested_size, frames (optional)
//   block:   size, state (required); address (else the segment's address plus the sizes of the
//            blocks before it), requested_size (else history[0].real_size, else size), frames
//            (else history[0].frames, else none)
//   trace entry: action, size (required); addr (required but for "oom", which has device_free
//            instead); stream (else 0), time_us (else -1), frames (else none)
//   frame:   name, filename, line (required)
// Sizes must not be negative. Anything but plain data (a pickle that imports or calls Python) is
// refused: such a file is not a memory snapshot. Parsing holds about 4 bytes of memory per byte
// of file besides the file (a real snapshot's layout; about 40 at worst, imports/plain_pickle.h)
// and takes under a second per million trace entries (about 55 MB of pickle).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace stepscope::imports {

// A file that is not a memory snapshot, or is damaged. path(): the field at fault
// ("segments[3].blocks[0].state"), empty when the fault is not one field's.
class MemorySnapshotError : public std::runtime_error {
 public:
  MemorySnapshotError(const std::string& message, std::string path = {})
      : std::runtime_error(message), path_(std::move(path)) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct StackFrame {
  std::string name;      // the function
  std::string filename;
  int64_t line = 0;
};

// Unique frames and unique stacks of them. Stack 0 is the empty stack (no frames recorded:
// allocated before recording, or on a thread without Python frames, such as autograd's).
struct FrameStacks {
  std::vector<StackFrame> frames;
  std::vector<std::vector<uint32_t>> stacks;  // frame indices, innermost first, as recorded
};

enum class BlockState : uint8_t { active_allocated, active_pending_free, inactive, unknown };
enum class SegmentPool : uint8_t { small, large, unknown };  // segment_type
// Trace actions. free_requested: the tensor was freed; free_completed: its block is reusable
// (later than the request when the block waits for other streams, see record_stream).
// segment_*: cudaMalloc / cudaFree (map/unmap: expandable segments); snapshot: a snapshot
// was taken; oom: an allocation failed. Any other name is kept as `other` with its name.
enum class TraceAction : uint8_t {
  alloc, free_requested, free_completed, segment_alloc, segment_free, segment_map, segment_unmap,
  snapshot, oom, other
};

struct SnapshotBlock {
  uint64_t address = 0;
  int64_t size = 0;            // the block's (rounded) size
  int64_t requested_size = 0;  // what the caller asked for
  BlockState state = BlockState::unknown;
  uint32_t stack = 0;          // index into FrameStacks::stacks
};

struct SnapshotSegment {
  int device = 0;
  uint64_t address = 0;
  int64_t total_size = 0;       // reserved from CUDA
  int64_t allocated_size = 0;   // in active_allocated blocks
  int64_t active_size = 0;      // in active blocks (allocated, or freed but pending other streams)
  int64_t requested_size = -1;  // what callers asked for; -1 not recorded (before 2.1)
  int64_t stream = 0;
  SegmentPool pool = SegmentPool::unknown;
  std::vector<SnapshotBlock> blocks;  // in address order
};

struct TraceEntry {
  uint64_t address = 0;     // 0 for oom
  int64_t size = 0;
  int64_t stream = 0;
  int64_t time_us = -1;     // -1 not recorded (before 2.1)
  uint32_t stack = 0;       // index into FrameStacks::stacks
  TraceAction action = TraceAction::other;
  uint16_t other_name = 0;  // action other: index into MemorySnapshot::other_action_names
};

struct MemorySnapshot {
  std::vector<SnapshotSegment> segments;
  std::vector<std::vector<TraceEntry>> device_traces;  // [device], in recording order
  FrameStacks stacks;
  std::vector<std::string> other_action_names;
};

// How far a read has come (the fraction of the pickle decoded); false stops it, and the reader
// throws PlainPickleCancelled (imports/plain_pickle.h).
using SnapshotProgress = std::function<bool(double)>;

// Parses a snapshot pickle held in memory. Throws MemorySnapshotError.
MemorySnapshot parse_memory_snapshot(std::string_view pickle_bytes, const SnapshotProgress& progress = {});

// Reads and parses the file at `path`; errors start with the path. Files over 1 GiB are refused.
MemorySnapshot read_memory_snapshot(const std::string& path, const SnapshotProgress& progress = {});

// "alloc", "free_completed", ...: PyTorch's names (for `other`, its own name).
std::string action_name(const MemorySnapshot& snapshot, const TraceEntry& entry);

}  // namespace stepscope::imports
