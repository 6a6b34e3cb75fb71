#include "imports/torch_trace_profile.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>

#include "profiling/kernel_summary_builder.h"
#include "profiling/step_ranges.h"

namespace stepscope::imports {

namespace {

constexpr const char* kStepPrefix = "ProfilerStep#";
constexpr size_t kBatch = 4096;

// The thread that made the most API calls: the training loop's, in a trace without steps.
uint32_t busiest_thread(const TorchTrace& trace) {
  std::map<uint32_t, size_t> calls;
  for (const auto& c : trace.api_calls) ++calls[c.thread];
  for (const auto& r : trace.ranges) ++calls[r.thread];
  uint32_t best = 0;
  size_t most = 0;
  for (const auto& [thread, n] : calls) {
    if (n > most) best = thread, most = n;
  }
  return best;
}

std::vector<profiling::RangeRecord> ranges_of(const TorchTrace& trace, std::vector<std::string>& notes) {
  std::vector<profiling::RangeRecord> out;
  const TraceSteps steps = trace_steps(trace);
  if (steps.whole_trace && !steps.steps.empty()) {
    profiling::RangeRecord whole;
    whole.name = profiling::step_ranges::kStep;
    whole.thread_id = steps.thread;
    whole.start_ns = steps.steps.front().start_ns;
    whole.end_ns = steps.steps.front().end_ns;
    whole.step = 0;
    out.push_back(whole);
    notes.push_back("no ProfilerStep#N annotations (profiled without a schedule): the whole trace is one step");
  }
  const auto step_at = [&](int64_t t) {
    for (const auto& s : steps.steps) {
      if (s.start_ns <= t && t < s.end_ns) return s.number;
    }
    return -1;
  };
  for (const auto& r : trace.ranges) {
    profiling::RangeRecord record;
    const int step = profiler_step_number(r.name);
    record.name = step >= 0 ? std::string(profiling::step_ranges::kStep) : r.name;
    record.thread_id = r.thread;
    record.start_ns = r.start_ns;
    record.end_ns = std::max(r.end_ns, r.start_ns + 1);  // 0 would read as "still open"
    record.step = step >= 0 ? step : step_at(r.start_ns);
    out.push_back(std::move(record));
  }
  // Ids in (thread, start, longest first, file) order; parents by nesting on each thread. File
  // order settles equal spans (the legacy exporter's whole microseconds make some): the parent first.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    if (a.thread_id != b.thread_id) return a.thread_id < b.thread_id;
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.end_ns > b.end_ns;
  });
  std::vector<size_t> open;  // indices into out, on the current thread
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].id = i + 1;
    if (i > 0 && out[i].thread_id != out[i - 1].thread_id) open.clear();
    while (!open.empty() && out[open.back()].end_ns <= out[i].start_ns) open.pop_back();
    out[i].parent_id = open.empty() ? 0 : out[open.back()].id;
    open.push_back(i);
  }
  return out;
}

}  // namespace

TraceSteps trace_steps(const TorchTrace& trace) {
  TraceSteps out;
  for (const auto& r : trace.ranges) {
    const int step = profiler_step_number(r.name);
    if (step < 0) continue;
    if (out.steps.empty()) out.thread = r.thread;
    out.steps.push_back({step, r.start_ns, std::max(r.end_ns, r.start_ns + 1)});
  }
  if (out.steps.empty()) {
    int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
    const auto widen = [&](int64_t a, int64_t b) {
      first = std::min(first, a);
      last = std::max(last, b);
    };
    for (const auto& r : trace.ranges) widen(r.start_ns, r.end_ns);
    for (const auto& c : trace.api_calls) widen(c.start_ns, c.end_ns);
    for (const auto& o : trace.operators) widen(o.start_ns, o.end_ns);
    if (first <= last) {
      out.thread = busiest_thread(trace);
      out.whole_trace = true;
      out.steps.push_back({0, first, last + 1});
    }
  }
  std::sort(out.steps.begin(), out.steps.end(),
            [](const TraceStep& a, const TraceStep& b) { return a.start_ns < b.start_ns; });
  return out;
}

int profiler_step_number(const std::string& range_name) {
  const std::string prefix = kStepPrefix;
  if (range_name.compare(0, prefix.size(), prefix) != 0 || range_name.size() == prefix.size()) return -1;
  const std::string digits = range_name.substr(prefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) || digits.size() > 9) {
    return -1;
  }
  return std::atoi(digits.c_str());
}

ImportedTraceProfile profile_torch_trace(const TorchTrace& trace) {
  ImportedTraceProfile out;
  profiling::SummaryOptions options;
  // The whole file is at hand: nothing is forgotten or given up on while attributing.
  options.attribution_window_ns = std::numeric_limits<int64_t>::max() / 4;
  options.max_pending = std::numeric_limits<size_t>::max() / 2;
  profiling::KernelSummaryBuilder builder(options);
  builder.add_ranges(ranges_of(trace, out.notes));

  profiling::ActivityBatch calls;
  for (const auto& c : trace.api_calls) {
    calls.api.push_back({trace.api_names[c.name], c.start_ns, c.end_ns, c.thread, c.correlation, c.driver});
  }
  builder.add_activity(calls);
  for (size_t first = 0; first < trace.activities.size(); first += kBatch) {
    profiling::ActivityBatch batch;
    const size_t last = std::min(trace.activities.size(), first + kBatch);
    for (size_t i = first; i < last; ++i) {
      const TraceActivity& a = trace.activities[i];
      if (a.is_memory) {
        batch.memory.push_back({a.operation, a.bytes, a.start_ns, a.end_ns, a.device, a.stream, a.correlation});
      } else {
        profiling::KernelRecord k;
        k.name = trace.kernel_names[a.name];
        k.start_ns = a.start_ns;
        k.end_ns = a.end_ns;
        k.device_id = a.device;
        k.stream_id = a.stream;
        k.correlation_id = a.correlation;
        batch.kernels.push_back(std::move(k));
      }
    }
    builder.add_activity(batch);
  }
  out.profile = builder.build(true);
  if (trace.uncategorized_events > 0) {
    out.notes.push_back(std::to_string(trace.uncategorized_events) +
                        " events without a category (PyTorch's profiler without Kineto, as 1.13's CPU builds "
                        "write): record_function annotations told from operators by their names");
  }
  if (!trace.operators.empty() && !trace.input_shapes_recorded) {
    out.notes.push_back("the trace records no input shapes: each operator is one row per range and name");
  }
  if (trace.activities.empty()) {
    out.notes.push_back(
        "no GPU activity in the trace (a CPU-only profile): CPU time per range and operator, no kernels");
  }
  if (out.profile.unattributed_kernels > 0) {
    out.notes.push_back(std::to_string(out.profile.unattributed_kernels) +
                        " kernels and copies launched outside every step, or by a call the trace does not hold");
  }
  return out;
}

}  // namespace stepscope::imports
