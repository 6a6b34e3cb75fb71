#include "imports/memory_snapshot_timeline.h"

#include "imports/snapshot_frames.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace stepscope::imports {

namespace {

using profiling::MemoryCategory;

const std::vector<TraceEntry>& trace_of(const MemorySnapshot& snapshot, int device) {
  static const std::vector<TraceEntry> none;
  return device >= 0 && static_cast<size_t>(device) < snapshot.device_traces.size() ? snapshot.device_traces[device]
                                                                                     : none;
}

bool alive_at(const SnapshotAllocation& a, int64_t entry) {
  return (a.alloc_entry < 0 || a.alloc_entry <= entry) && (a.free_entry < 0 || a.free_entry > entry);
}

}  // namespace

SnapshotTimeline build_snapshot_timeline(const MemorySnapshot& snapshot, int device, size_t largest_count) {
  SnapshotTimeline t;
  t.device = device;
  const std::vector<TraceEntry>& trace = trace_of(snapshot, device);

  // Elements and the actions on them (element index; alloc or free), in trace order.
  std::vector<SnapshotAllocation>& all = t.allocations;
  std::vector<uint32_t> free_stacks;  // per element: the frames of its free, for rule 3
  std::vector<std::pair<uint32_t, bool>> actions;
  std::unordered_map<uint64_t, uint32_t> live;          // address -> allocation not yet freed
  std::unordered_map<uint64_t, uint32_t> free_request;  // address -> frames of its free_requested
  std::vector<uint32_t> before;                         // alive before recording began
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceEntry& e = trace[i];
    if (e.action == TraceAction::alloc) {
      ++t.alloc_entries;
      all.push_back({e.address, e.size, e.stack, static_cast<int64_t>(i), -1, MemoryCategory::other});
      free_stacks.push_back(0);
      live[e.address] = static_cast<uint32_t>(all.size() - 1);
      actions.emplace_back(static_cast<uint32_t>(all.size() - 1), true);
    } else if (e.action == TraceAction::free_requested) {
      free_request[e.address] = e.stack;
    } else if (e.action == TraceAction::free_completed) {
      ++t.free_completed_entries;
      uint32_t element;
      auto it = live.find(e.address);
      if (it != live.end()) {
        element = it->second;
        live.erase(it);
      } else {
        all.push_back({e.address, e.size, e.stack, -1, -1, MemoryCategory::other});
        free_stacks.push_back(0);
        element = static_cast<uint32_t>(all.size() - 1);
        before.push_back(element);
      }
      all[element].free_entry = static_cast<int64_t>(i);
      auto requested = free_request.find(e.address);
      const bool request_has_frames = requested != free_request.end() && requested->second != 0;
      free_stacks[element] = request_has_frames ? requested->second : e.stack;
      if (requested != free_request.end()) free_request.erase(requested);
      actions.emplace_back(element, false);
    }
  }
  for (const SnapshotSegment& s : snapshot.segments) {
    if (s.device != device) continue;
    for (const SnapshotBlock& b : s.blocks) {
      if (b.state != BlockState::active_allocated || live.count(b.address)) continue;
      all.push_back({b.address, b.requested_size, b.stack, -1, -1, MemoryCategory::other});
      free_stacks.push_back(0);
      before.push_back(static_cast<uint32_t>(all.size() - 1));
    }
  }

  SnapshotCategorizer categorizer(snapshot.stacks);
  for (size_t k = 0; k < all.size(); ++k) {
    // Allocations alive before recording have no alloc frames to judge by (their stack, if
    // any, is their free's), and the allocation log counts them as its baseline: other.
    if (all[k].alloc_entry < 0) continue;
    all[k].category = categorizer.category(all[k].stack, free_stacks[k], all[k].free_entry >= 0);
    if (all[k].category != MemoryCategory::other) ++t.categorised_allocations;
  }

  // The replay. With no action at all, memory_viz draws the first allocation alive before
  // recording as the one action.
  for (uint32_t k : before) t.before_recording_bytes += all[k].bytes;
  t.before_recording_allocations = before.size();
  int64_t total = t.before_recording_bytes;
  bool peaked = false;
  if (actions.empty() && total > 0) {
    t.peak_bytes = total;
    peaked = true;
  }
  for (const auto& [element, is_alloc] : actions) {
    const SnapshotAllocation& a = all[element];
    total += is_alloc ? a.bytes : -a.bytes;
    if (total > t.peak_bytes) {
      t.peak_bytes = total;
      t.peak_entry = is_alloc ? a.alloc_entry : a.free_entry;
      peaked = true;
    }
  }
  t.final_bytes = total;
  if (t.peak_entry >= 0) t.peak_time_us = trace[static_cast<size_t>(t.peak_entry)].time_us;

  if (peaked) {
    for (uint32_t k = 0; k < all.size(); ++k) {
      if (!alive_at(all[k], t.peak_entry)) continue;
      t.largest_at_peak.push_back(k);
      t.peak_bytes_by_category[profiling::category_index(all[k].category)] += all[k].bytes;
    }
    auto larger = [&](uint32_t x, uint32_t y) {
      return all[x].bytes != all[y].bytes ? all[x].bytes > all[y].bytes : all[x].address < all[y].address;
    };
    const size_t keep = std::min(largest_count, t.largest_at_peak.size());
    std::partial_sort(t.largest_at_peak.begin(), t.largest_at_peak.begin() + static_cast<std::ptrdiff_t>(keep),
                      t.largest_at_peak.end(), larger);
    t.largest_at_peak.resize(keep);
  }
  t.segments = segment_view(snapshot, device);
  return t;
}

std::vector<int> snapshot_devices(const MemorySnapshot& snapshot) {
  std::vector<int> devices;
  for (const SnapshotSegment& s : snapshot.segments) devices.push_back(s.device);
  for (size_t d = 0; d < snapshot.device_traces.size(); ++d) {
    if (!snapshot.device_traces[d].empty()) devices.push_back(static_cast<int>(d));
  }
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  return devices;
}

std::string first_frame_text(const MemorySnapshot& snapshot, uint32_t stack, bool full_path) {
  const auto frames = frames_user_first(snapshot.stacks, stack);
  if (frames.empty()) return "";
  const StackFrame& f = snapshot.stacks.frames[frames.front()];
  const size_t slash = full_path ? std::string::npos : f.filename.find_last_of('/');
  const std::string file = slash == std::string::npos ? f.filename : f.filename.substr(slash + 1);
  return file + ":" + std::to_string(f.line) + " in " + f.name;
}

profiling::AllocationLog to_allocation_log(const MemorySnapshot& snapshot, const SnapshotTimeline& timeline,
                                           bool frames_as_phase) {
  profiling::AllocationLog log;
  // frames_as_phase: each stack's first frame, worked out once.
  std::vector<std::string> frame_text(frames_as_phase ? snapshot.stacks.stacks.size() : 0);
  std::vector<bool> known(frame_text.size(), false);
  const auto phase_of = [&](uint32_t stack) -> const std::string& {
    if (!known[stack]) frame_text[stack] = first_frame_text(snapshot, stack, false), known[stack] = true;
    return frame_text[stack];
  };

  const std::vector<TraceEntry>& trace = trace_of(snapshot, timeline.device);
  const std::vector<SnapshotAllocation>& all = timeline.allocations;

  // Per trace entry, the action on it: element * 2 + (1 for an alloc), or -1.
  std::vector<int64_t> action_at(trace.size(), -1);
  for (size_t k = 0; k < all.size(); ++k) {
    const auto entries = static_cast<int64_t>(trace.size());
    if (all[k].alloc_entry >= entries || all[k].free_entry >= entries) {
      throw std::invalid_argument("to_allocation_log: the timeline was built from another snapshot");
    }
    if (all[k].alloc_entry >= 0) action_at[static_cast<size_t>(all[k].alloc_entry)] = static_cast<int64_t>(k) * 2 + 1;
    if (all[k].free_entry >= 0) action_at[static_cast<size_t>(all[k].free_entry)] = static_cast<int64_t>(k) * 2;
  }

  // Reserved bytes after each entry, walking back from the segments at the end.
  int64_t reserved = timeline.segments.totals.reserved_bytes;
  std::vector<int64_t> reserved_after(trace.size(), -1);
  for (size_t i = trace.size(); i-- > 0;) {
    reserved_after[i] = reserved >= 0 ? reserved : -1;
    const TraceEntry& e = trace[i];
    if (e.action == TraceAction::segment_alloc || e.action == TraceAction::segment_map) reserved -= e.size;
    if (e.action == TraceAction::segment_free || e.action == TraceAction::segment_unmap) reserved += e.size;
  }

  const bool timed = std::all_of(trace.begin(), trace.end(), [](const TraceEntry& e) { return e.time_us >= 0; });
  constexpr int64_t kLatestUs = std::numeric_limits<int64_t>::max() / 1000 - 1;
  int64_t previous_ns = std::numeric_limits<int64_t>::min();
  for (size_t i = 0; i < trace.size(); ++i) {
    if (action_at[i] < 0) continue;
    const SnapshotAllocation& a = all[static_cast<size_t>(action_at[i] / 2)];
    const bool is_alloc = action_at[i] % 2 == 1;
    int64_t time_ns = timed ? std::min(trace[i].time_us, kLatestUs) * 1000 : static_cast<int64_t>(i);
    if (previous_ns != std::numeric_limits<int64_t>::min()) time_ns = std::max(time_ns, previous_ns + 1);
    previous_ns = time_ns;
    profiling::AllocationEvent event;
    event.time_ns = time_ns;
    event.address = a.address;
    event.bytes = is_alloc ? a.bytes : -a.bytes;
    event.reserved_bytes = reserved_after[i];
    event.device = timeline.device;
    event.stream = trace[i].stream;
    if (frames_as_phase) event.phase = phase_of(a.stack);
    log.events.push_back(std::move(event));
    if (is_alloc && a.category != profiling::MemoryCategory::other) {
      log.labels.push_back({time_ns, a.address, a.category, -1});
    }
  }

  int64_t baseline = timeline.before_recording_bytes;
  if (log.events.empty() && !all.empty()) {
    // No action: memory_viz's one drawn action, the first allocation alive before recording.
    profiling::AllocationEvent event;
    event.address = all.front().address;
    event.bytes = all.front().bytes;
    event.reserved_bytes = timeline.segments.totals.reserved_bytes;
    event.device = timeline.device;
    log.events.push_back(std::move(event));
    baseline -= all.front().bytes;
  }
  if (baseline > 0 || !log.events.empty()) {
    log.baselines.push_back({log.events.empty() ? 0 : log.events.front().time_ns, timeline.device, baseline});
  }
  return log;
}

}  // namespace stepscope::imports
