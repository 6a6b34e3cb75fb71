#include "profiling/memory_timeline.h"
#include "profiling/step_ranges.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <utility>

namespace stepscope::profiling {

using namespace step_ranges;

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

struct Block {
  int64_t bytes = 0;
  int64_t tensor_bytes = -1;  // the labelled tensor's own size (rule 8); -1 unknown
  MemoryCategory label = MemoryCategory::other;
  bool labelled = false;
  bool in_step = false;     // allocated between a step's "forward" and "step end" marks
  bool activation = false;  // allocated in a forward window, live at its "backward" mark
  bool outlived_step = false;  // still live when its step ended: a cache or workspace, not step data
  bool live = true;

  MemoryCategory category() const {
    if (labelled) return label;
    if (outlived_step) return MemoryCategory::other;
    if (activation) return MemoryCategory::activation;
    return in_step ? MemoryCategory::temporary : MemoryCategory::other;
  }
};

// Indices of `items` passing `keep`, stable-sorted by time (recorder threads can append
// slightly out of order); no sort when already ordered.
template <class T, class Keep>
std::vector<uint32_t> time_order(const std::vector<T>& items, Keep keep) {
  std::vector<uint32_t> order;
  order.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    if (keep(items[i])) order.push_back(static_cast<uint32_t>(i));
  }
  auto earlier = [&](uint32_t a, uint32_t b) { return items[a].time_ns < items[b].time_ns; };
  if (!std::is_sorted(order.begin(), order.end(), earlier)) std::stable_sort(order.begin(), order.end(), earlier);
  return order;
}

// The steps and forward pass in progress while walking the marks (rule 3).
struct Windows {
  bool step_open = false, forward_open = false;
  int step = -1;
  bool warmup = false;
  std::vector<int32_t> forward_blocks;  // allocated while forward_open
  std::vector<int32_t> step_blocks;     // allocated while step_open

  void close_step(std::vector<Block>& blocks) {
    for (int32_t id : step_blocks) blocks[id].outlived_step = blocks[id].live;
    step_blocks.clear();
  }

  void on_mark(const PhaseMark& mark, std::vector<Block>& blocks) {
    const bool same_step = step_open && mark.step == step && mark.warmup == warmup;
    if (step_open && (mark.phase == kForward || !same_step || mark.phase == kStepEnd)) close_step(blocks);
    if (mark.phase == kForward) {
      step_open = forward_open = true;
      step = mark.step;
      warmup = mark.warmup;
      forward_blocks.clear();
    } else if (!same_step) {
      step_open = forward_open = false;
    } else if (mark.phase == kBackward) {
      if (forward_open) {
        for (int32_t id : forward_blocks) blocks[id].activation = blocks[id].live;
      }
      forward_open = false;
    } else if (mark.phase == kOptimizerStep) {
      forward_open = false;
    } else if (mark.phase == kStepEnd) {
      step_open = forward_open = false;
    }
    if (!forward_open) forward_blocks.clear();
  }
};

struct GroupKey {
  int64_t bytes;
  uint32_t phase_id;
  MemoryCategory category;
  bool operator==(const GroupKey& o) const {
    return bytes == o.bytes && phase_id == o.phase_id && category == o.category;
  }
};
struct GroupKeyHash {
  size_t operator()(const GroupKey& k) const {
    uint64_t h = static_cast<uint64_t>(k.bytes) * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t{k.phase_id} << 3 | category_index(k.category)) + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
    return static_cast<size_t>(h);
  }
};

// Groups allocations by (bytes, category, phase); phases are interned, with a cache of the
// previous event's phase because consecutive events mostly share it.
class LargestGroups {
 public:
  void add(int64_t bytes, MemoryCategory category, const std::string& phase) {
    if (last_phase_ == nullptr || *last_phase_ != phase) {
      auto [it, inserted] = phase_ids_.try_emplace(phase, static_cast<uint32_t>(phase_names_.size()));
      if (inserted) phase_names_.push_back(&it->first);
      last_phase_ = &phase;
      last_id_ = it->second;
    }
    ++counts_[GroupKey{bytes, last_id_, category}];
  }

  std::vector<LargeAllocation> top(size_t n) const {
    std::vector<LargeAllocation> all;
    all.reserve(counts_.size());
    for (const auto& [key, count] : counts_) {
      all.push_back({key.bytes, count, key.category, *phase_names_[key.phase_id]});
    }
    auto before = [](const LargeAllocation& a, const LargeAllocation& b) {
      if (a.bytes != b.bytes) return a.bytes > b.bytes;
      if (a.count != b.count) return a.count > b.count;
      if (a.category != b.category) return a.category < b.category;
      return a.phase < b.phase;
    };
    n = std::min(n, all.size());
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(), before);
    all.resize(n);
    return all;
  }

 private:
  std::unordered_map<std::string, uint32_t> phase_ids_;
  std::vector<const std::string*> phase_names_;  // node-based map: keys stay put
  const std::string* last_phase_ = nullptr;
  uint32_t last_id_ = 0;
  std::unordered_map<GroupKey, int64_t, GroupKeyHash> counts_;
};

MemoryPeak peak_at(const std::string& label, const MemoryTimeline& timeline, size_t point) {
  const MemoryPoint& p = timeline.points[point];
  MemoryPeak peak;
  peak.label = label;
  peak.time_ns = p.time_ns;
  peak.allocated_bytes = p.allocated_bytes;
  peak.reserved_bytes = p.reserved_bytes;
  peak.bytes_by_category = p.bytes_by_category;
  if (p.band >= 0) {
    peak.step = timeline.bands[p.band].step;
    peak.warmup = timeline.bands[p.band].warmup;
  }
  return peak;
}

// Rule 6; points_before_mark[m] = points made before mark m (marks in band order).
void add_peaks(MemoryTimeline& t, const std::vector<size_t>& points_before_mark, bool include_warmup) {
  const size_t none = t.points.size();
  auto measured = [&](const PhaseBand& b) { return include_warmup || !b.warmup; };
  auto highest = [&](const std::string& phase) {
    size_t best = none;
    for (size_t i = 0; i < t.points.size(); ++i) {
      const int32_t band = t.points[i].band;
      if (band < 0 || t.bands[band].phase != phase || !measured(t.bands[band])) continue;
      if (best == none || t.points[i].allocated_bytes > t.points[best].allocated_bytes) best = i;
    }
    return best;
  };
  auto last_before_mark = [&](size_t mark) {
    return points_before_mark[mark] > 0 ? points_before_mark[mark] - 1 : none;
  };
  auto add = [&](const std::string& label, size_t point) {
    if (point != none) t.peaks.push_back(peak_at(label, t, point));
  };

  if (!t.bands.empty()) add("after model initialisation", last_before_mark(0));
  add(kForward, highest(kForward));
  add(kBackward, highest(kBackward));
  for (size_t m = 0; m < t.bands.size(); ++m) {
    const PhaseBand& opt = t.bands[m];
    if (opt.phase != kOptimizerStep || !measured(opt)) continue;
    add("before optimizer step", last_before_mark(m));
    add(kOptimizerStep, highest(kOptimizerStep));
    for (size_t e = m + 1; e < t.bands.size(); ++e) {
      const PhaseBand& end = t.bands[e];
      if (end.phase == kStepEnd && end.step == opt.step && end.warmup == opt.warmup) {
        add("after optimizer step", last_before_mark(e));
        break;
      }
    }
    break;
  }
  size_t top = 0;
  for (size_t i = 1; i < t.points.size(); ++i) {
    if (t.points[i].allocated_bytes > t.points[top].allocated_bytes) top = i;
  }
  if (!t.points.empty()) add("overall", top);
}

}  // namespace

MemoryTimeline build_memory_timeline(const AllocationLog& log, const TimelineOptions& options) {
  MemoryTimeline t;
  t.dropped_events = log.dropped_events;
  t.event_limit = log.event_limit;
  t.truncated = log.dropped_events > 0;

  const auto events = time_order(log.events, [&](const AllocationEvent& e) {
    return !options.device || e.device == *options.device;
  });
  const auto marks = time_order(log.phases, [](const PhaseMark&) { return true; });
  const auto labels = time_order(log.labels, [](const AllocationLabel&) { return true; });

  // Pass 1: walk the merged log, building blocks and their lifetimes (rules 1-3).
  std::vector<Block> blocks;
  blocks.reserve(events.size());
  std::vector<int32_t> event_block(events.size(), -1);     // block allocated or freed
  std::vector<std::pair<size_t, int32_t>> replaced;        // (event, block it ended)
  std::vector<size_t> points_before_mark(marks.size(), 0);
  std::unordered_map<uint64_t, int32_t> live;
  live.reserve(1024);
  Windows windows;
  t.points.reserve(events.size());
  t.bands.reserve(marks.size());

  size_t e = 0, m = 0, l = 0;
  while (e < events.size() || m < marks.size() || l < labels.size()) {
    const int64_t te = e < events.size() ? log.events[events[e]].time_ns : kNever;
    const int64_t tm = m < marks.size() ? log.phases[marks[m]].time_ns : kNever;
    const int64_t tl = l < labels.size() ? log.labels[labels[l]].time_ns : kNever;
    if (m < marks.size() && tm <= te && tm <= tl) {
      const PhaseMark& mark = log.phases[marks[m]];
      points_before_mark[m] = t.points.size();
      t.bands.push_back({mark.phase, mark.step, mark.warmup, mark.time_ns, mark.time_ns});
      windows.on_mark(mark, blocks);
      ++m;
    } else if (e < events.size() && te <= tl) {
      const AllocationEvent& ev = log.events[events[e]];
      if (ev.bytes > 0) {
        const auto id = static_cast<int32_t>(blocks.size());
        auto [it, inserted] = live.try_emplace(ev.address, id);
        if (!inserted) {
          blocks[it->second].live = false;
          replaced.emplace_back(e, it->second);
          ++t.implicit_frees;
          it->second = id;
        }
        Block block;
        block.bytes = ev.bytes;
        block.in_step = windows.step_open;
        blocks.push_back(block);
        if (windows.forward_open) windows.forward_blocks.push_back(id);
        if (windows.step_open) windows.step_blocks.push_back(id);
        event_block[e] = id;
      } else if (ev.bytes < 0) {
        auto it = live.find(ev.address);
        if (it == live.end()) {
          ++t.unknown_frees;
          t.unknown_freed_bytes -= ev.bytes;
        } else {
          event_block[e] = it->second;
          blocks[it->second].live = false;
          live.erase(it);
        }
      }
      MemoryPoint point;
      point.time_ns = ev.time_ns;
      point.reserved_bytes = ev.reserved_bytes;
      point.band = static_cast<int32_t>(t.bands.size()) - 1;
      t.points.push_back(point);
      t.peak_reserved_bytes = std::max(t.peak_reserved_bytes, ev.reserved_bytes);
      ++e;
    } else {
      const AllocationLabel& label = log.labels[labels[l]];
      auto it = live.find(label.address);
      if (it == live.end()) {
        ++t.unmatched_labels;
      } else {
        Block& block = blocks[it->second];
        block.labelled = true;
        block.label = label.category;
        block.tensor_bytes = label.tensor_bytes >= 0 ? std::min(label.tensor_bytes, block.bytes) : -1;
      }
      ++l;
    }
  }
  const int64_t log_end = t.points.empty() ? std::numeric_limits<int64_t>::min() : t.points.back().time_ns;
  for (size_t b = 0; b < t.bands.size(); ++b) {
    t.bands[b].end_ns = b + 1 < t.bands.size() ? t.bands[b + 1].start_ns : std::max(t.bands[b].start_ns, log_end);
  }

  // Pass 2: categories are final; sum live bytes per category after each event (rule 4), and
  // the same with labelled blocks at their tensors' sizes (rule 8).
  CategoryBytes sums{};
  CategoryBytes tensor_sums{};
  CategoryBytes highest_tensor{};
  std::array<bool, kMemoryCategoryCount> sized{};  // a block of the category had a tensor size
  const auto as_tensor = [](const Block& b) { return b.tensor_bytes >= 0 ? b.tensor_bytes : b.bytes; };
  for (const auto& baseline : log.baselines) {
    if (!options.device || baseline.device == *options.device) t.baseline_bytes += baseline.bytes;
  }
  int64_t baseline_left = t.baseline_bytes;
  sums[category_index(MemoryCategory::other)] = baseline_left;
  tensor_sums[category_index(MemoryCategory::other)] = baseline_left;
  int64_t total = baseline_left;
  size_t next_replaced = 0;
  LargestGroups groups;
  for (size_t i = 0; i < events.size(); ++i) {
    const int32_t id = event_block[i];
    if (next_replaced < replaced.size() && replaced[next_replaced].first == i) {
      const Block& old = blocks[replaced[next_replaced++].second];
      sums[category_index(old.category())] -= old.bytes;
      tensor_sums[category_index(old.category())] -= as_tensor(old);
      total -= old.bytes;
    }
    if (id < 0 && log.events[events[i]].bytes < 0 && baseline_left > 0) {
      // A free of memory allocated before recording: it came out of the baseline.
      const int64_t freed = std::min(baseline_left, -log.events[events[i]].bytes);
      baseline_left -= freed;
      sums[category_index(MemoryCategory::other)] -= freed;
      tensor_sums[category_index(MemoryCategory::other)] -= freed;
      total -= freed;
    }
    if (id >= 0) {
      const Block& block = blocks[id];
      const MemoryCategory category = block.category();
      const AllocationEvent& ev = log.events[events[i]];
      const int64_t delta = ev.bytes > 0 ? block.bytes : -block.bytes;
      sums[category_index(category)] += delta;
      tensor_sums[category_index(category)] += ev.bytes > 0 ? as_tensor(block) : -as_tensor(block);
      highest_tensor[category_index(category)] =
          std::max(highest_tensor[category_index(category)], tensor_sums[category_index(category)]);
      if (block.tensor_bytes >= 0) sized[category_index(category)] = true;
      total += delta;
      const int32_t band = t.points[i].band;
      if (ev.bytes > 0 && (options.include_warmup || band < 0 || !t.bands[band].warmup)) {
        groups.add(block.bytes, category, ev.phase);
      }
    }
    t.points[i].bytes_by_category = sums;
    t.points[i].allocated_bytes = total;
  }

  for (size_t k = 0; k < kMemoryCategoryCount; ++k) t.highest_tensor_bytes_by_category[k] = sized[k] ? highest_tensor[k] : -1;
  add_peaks(t, points_before_mark, options.include_warmup);
  t.largest = groups.top(options.largest_count);
  return t;
}

}  // namespace stepscope::profiling
