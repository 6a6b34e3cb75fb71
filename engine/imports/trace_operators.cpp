#include "imports/trace_operators.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "imports/torch_trace_profile.h"
#include "profiling/kernel_category.h"
#include "profiling/kernel_names.h"

namespace stepscope::imports {

namespace {

struct Interval {
  int64_t start = 0, end = 0;
  size_t item = 0;  // what the interval is (an index the caller knows)
};

// Intervals of one thread, nested as a call stack nests (record_function annotations, operators).
struct Nesting {
  std::vector<int64_t> parent;  // per interval (in the order given), -1 at the top
  // From each time on, the interval open innermost (-1: none); times ascending.
  std::vector<std::pair<int64_t, int64_t>> innermost;

  int64_t innermost_at(int64_t t) const {
    const auto it = std::upper_bound(innermost.begin(), innermost.end(), t,
                                     [](int64_t time, const auto& s) { return time < s.first; });
    return it == innermost.begin() ? -1 : std::prev(it)->second;
  }
};

// `intervals` sorted by start, the longest first at equal starts, then in file order. One is
// nested in another when it lies within it, as torch.profiler's key_averages takes it
// (profiler_util's _populate_cpu_children): one that starts inside but ends after (the legacy
// exporter's whole microseconds make some) is not, and takes the other's place on the stack.
// Of two with the same span, the first in the file holds the second (PyTorch writes a parent
// before its children).
Nesting nest(const std::vector<Interval>& intervals) {
  Nesting out;
  out.parent.assign(intervals.size(), -1);
  std::vector<size_t> open;
  const auto mark = [&](int64_t time, int64_t inner) {
    if (!out.innermost.empty()) time = std::max(time, out.innermost.back().first);
    out.innermost.emplace_back(time, inner);
  };
  const auto close_until = [&](int64_t t) {
    while (!open.empty() && intervals[open.back()].end <= t) {
      const int64_t end = intervals[open.back()].end;
      open.pop_back();
      mark(end, open.empty() ? -1 : static_cast<int64_t>(open.back()));
    }
  };
  for (size_t i = 0; i < intervals.size(); ++i) {
    close_until(intervals[i].start);
    while (!open.empty() && intervals[open.back()].end < intervals[i].end) open.pop_back();  // not within
    out.parent[i] = open.empty() ? -1 : static_cast<int64_t>(open.back());
    open.push_back(i);
    mark(intervals[i].start, static_cast<int64_t>(i));
  }
  close_until(std::numeric_limits<int64_t>::max());
  return out;
}

bool by_start_longest_first(const Interval& a, const Interval& b) {
  if (a.start != b.start) return a.start < b.start;
  return a.end != b.end ? a.end > b.end : a.item < b.item;
}

// The annotation paths open on each thread, interned: path 0 is the empty one.
class AnnotationPaths {
 public:
  AnnotationPaths(const TorchTrace& trace, uint32_t steps_thread) : steps_thread_(steps_thread) {
    paths_.emplace_back();
    ids_.emplace(std::vector<std::string>{}, 0);
    std::map<uint32_t, std::vector<Interval>> by_thread;
    for (size_t i = 0; i < trace.ranges.size(); ++i) {
      const TraceRange& r = trace.ranges[i];
      annotated_.resize(std::max<size_t>(annotated_.size(), r.thread + 1), false);
      annotated_[r.thread] = true;
      if (profiler_step_number(r.name) >= 0) continue;
      by_thread[r.thread].push_back({r.start_ns, std::max(r.end_ns, r.start_ns + 1), i});
    }
    for (auto& [thread, intervals] : by_thread) {
      std::sort(intervals.begin(), intervals.end(), by_start_longest_first);
      Thread& t = threads_[thread];
      t.nesting = nest(intervals);
      t.path.resize(intervals.size());
      for (size_t i = 0; i < intervals.size(); ++i) {
        const int64_t parent = t.nesting.parent[i];
        std::vector<std::string> path = parent < 0 ? std::vector<std::string>{} : paths_[t.path[static_cast<size_t>(parent)]];
        path.push_back(trace.ranges[intervals[i].item].name);
        t.path[i] = intern(std::move(path));
      }
    }
  }

  // The path open at `time` on `thread`, or on the steps' thread when `thread` has no annotations.
  uint32_t at(uint32_t thread, int64_t time) const {
    const bool own = thread < annotated_.size() && annotated_[thread];
    const auto it = threads_.find(own ? thread : steps_thread_);
    if (it == threads_.end()) return 0;
    const int64_t inner = it->second.nesting.innermost_at(time);
    return inner < 0 ? 0 : it->second.path[static_cast<size_t>(inner)];
  }
  const std::vector<std::string>& path(uint32_t id) const { return paths_[id]; }

 private:
  struct Thread {
    Nesting nesting;
    std::vector<uint32_t> path;  // per interval of `nesting`
  };
  uint32_t intern(std::vector<std::string> path) {
    const auto [it, added] = ids_.emplace(path, static_cast<uint32_t>(paths_.size()));
    if (added) paths_.push_back(std::move(path));
    return it->second;
  }

  uint32_t steps_thread_;
  std::vector<bool> annotated_;  // per thread: holds any annotation, ProfilerStep#N included
  std::map<uint32_t, Thread> threads_;
  std::vector<std::vector<std::string>> paths_;
  std::map<std::vector<std::string>, uint32_t> ids_;
};

constexpr uint32_t kOutside = std::numeric_limits<uint32_t>::max();  // the pseudo-operator's name

struct Group {
  profiling::OperatorStats stats;
  std::map<std::pair<bool, uint32_t>, size_t> kernel_index;  // (memory, name or operation) -> kernels
};

}  // namespace

profiling::OperatorProfile trace_operator_profile(const TorchTrace& trace) {
  profiling::OperatorProfile out;
  const TraceSteps steps = trace_steps(trace);
  out.measured_steps = static_cast<int>(steps.steps.size());
  for (const auto& s : steps.steps) out.measured_cpu_ns += s.end_ns - s.start_ns;
  out.gpu_activity_recorded = !trace.activities.empty();
  if (!out.gpu_activity_recorded) out.source_message = "no GPU activity in the trace (a CPU-only profile)";
  const auto in_step = [&](int64_t t) {
    const auto it = std::upper_bound(steps.steps.begin(), steps.steps.end(), t,
                                     [](int64_t time, const TraceStep& s) { return time < s.start_ns; });
    return it != steps.steps.begin() && t < std::prev(it)->end_ns;
  };
  const AnnotationPaths paths(trace, steps.thread);

  // Operators of the steps, nested per thread.
  std::map<uint32_t, std::vector<Interval>> ops_by_thread;
  for (size_t i = 0; i < trace.operators.size(); ++i) {
    const TraceOperator& op = trace.operators[i];
    if (!in_step(op.start_ns)) continue;
    ops_by_thread[op.thread].push_back({op.start_ns, std::max(op.end_ns, op.start_ns), i});
  }
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, size_t> group_index;  // (path, name, shapes)
  std::vector<Group> groups;
  const auto group_of = [&](uint32_t path, uint32_t name, uint32_t shapes) -> Group& {
    const auto [it, added] = group_index.emplace(std::make_tuple(path, name, shapes), groups.size());
    if (added) {
      Group g;
      g.stats.range_path = paths.path(path);
      g.stats.name = name == kOutside ? profiling::kOutsideOperators : trace.operator_names[name];
      g.stats.input_shapes = name == kOutside ? "" : trace.shape_texts[shapes];
      groups.push_back(std::move(g));
    }
    return groups[it->second];
  };
  struct ThreadOps {
    Nesting nesting;
    std::vector<size_t> group;  // per op
  };
  std::map<uint32_t, ThreadOps> threads;
  for (auto& [thread, intervals] : ops_by_thread) {
    std::sort(intervals.begin(), intervals.end(), by_start_longest_first);
    ThreadOps& t = threads[thread];
    t.nesting = nest(intervals);
    t.group.resize(intervals.size());
    std::vector<int64_t> nested_ns(intervals.size(), 0);
    for (size_t i = 0; i < intervals.size(); ++i) {
      if (t.nesting.parent[i] >= 0) nested_ns[static_cast<size_t>(t.nesting.parent[i])] += intervals[i].end - intervals[i].start;
    }
    for (size_t i = 0; i < intervals.size(); ++i) {
      const TraceOperator& op = trace.operators[intervals[i].item];
      Group& g = group_of(paths.at(thread, op.start_ns), op.name, op.shapes);
      t.group[i] = static_cast<size_t>(&g - groups.data());
      const int64_t duration = intervals[i].end - intervals[i].start;
      ++g.stats.calls;
      g.stats.total_cpu_ns += duration;
      g.stats.self_cpu_ns += duration - nested_ns[i];
      ++out.operator_calls;
    }
  }

  // Kernels, copies and sets, each to the operator that launched it.
  std::unordered_map<uint32_t, size_t> call_of;  // correlation -> api_calls index (the first)
  for (size_t i = 0; i < trace.api_calls.size(); ++i) call_of.emplace(trace.api_calls[i].correlation, i);
  for (const TraceActivity& a : trace.activities) {
    const auto call = call_of.find(a.correlation);
    if (call == call_of.end() || !in_step(trace.api_calls[call->second].start_ns)) {
      ++out.unattributed_kernels;
      continue;
    }
    const TraceApiCall& launch = trace.api_calls[call->second];
    const auto thread = threads.find(launch.thread);
    const int64_t op = thread == threads.end() ? -1 : thread->second.nesting.innermost_at(launch.start_ns);
    const int64_t duration = a.end_ns - a.start_ns;
    Group* g = nullptr;
    if (op < 0) {
      g = &group_of(paths.at(launch.thread, launch.start_ns), kOutside, 0);
      g->stats.total_gpu_ns += duration;
    } else {
      // Its time counts for the launching operator and every operator it is nested in.
      const ThreadOps& t = thread->second;
      for (int64_t o = op; o >= 0; o = t.nesting.parent[static_cast<size_t>(o)]) {
        groups[t.group[static_cast<size_t>(o)]].stats.total_gpu_ns += duration;
      }
      g = &groups[t.group[static_cast<size_t>(op)]];
    }
    g->stats.self_gpu_ns += duration;
    const auto key = std::make_pair(a.is_memory, a.is_memory ? static_cast<uint32_t>(a.operation) : a.name);
    const auto [k, added] = g->kernel_index.emplace(key, g->stats.kernels.size());
    if (added) {
      profiling::OperatorKernel kernel;
      kernel.name = a.is_memory ? profiling::memory_activity_name(a.operation) : trace.kernel_names[a.name];
      kernel.short_name = a.is_memory ? kernel.name : profiling::short_kernel_name(kernel.name);
      kernel.category = a.is_memory ? profiling::KernelCategory::memory : profiling::classify_kernel(kernel.name);
      g->stats.kernels.push_back(std::move(kernel));
    }
    auto& kernel = g->stats.kernels[k->second];
    ++kernel.launches;
    kernel.total_ns += duration;
  }

  out.operators.reserve(groups.size());
  for (auto& g : groups) {
    std::stable_sort(g.stats.kernels.begin(), g.stats.kernels.end(),
                     [](const auto& a, const auto& b) { return a.total_ns > b.total_ns; });
    out.operators.push_back(std::move(g.stats));
  }
  std::stable_sort(out.operators.begin(), out.operators.end(),
                   [](const auto& a, const auto& b) { return a.self_cpu_ns > b.self_cpu_ns; });
  return out;
}

}  // namespace stepscope::imports
