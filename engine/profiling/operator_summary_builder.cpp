#include "profiling/operator_summary_builder.h"

#include <algorithm>

#include "profiling/launch_calls.h"
#include "profiling/pending_activity.h"
#include "profiling/step_ranges.h"

namespace stepscope::profiling {

OperatorSummaryBuilder::OperatorSummaryBuilder(OperatorSummaryOptions options)
    : options_(options), step_name_(string_id(step_ranges::kStep)), ranges_(step_name_) {
  paths_.emplace_back();  // path 0: outside every range
}

uint32_t OperatorSummaryBuilder::string_id(const std::string& text) {
  const auto [it, inserted] = string_ids_.try_emplace(text, static_cast<uint32_t>(strings_.size()));
  if (inserted) strings_.push_back(text);
  return it->second;
}

bool OperatorSummaryBuilder::measured(const TimedRange& range) const {
  return range.step >= 0 && (!range.warmup || options_.include_warmup);
}

uint32_t OperatorSummaryBuilder::path_of(uint64_t range_id) {
  if (range_id == 0) return 0;
  const auto known = range_paths_.find(range_id);
  if (known != range_paths_.end()) return known->second;
  const TimedRange* range = ranges_.find(range_id);
  if (range == nullptr) return kUnresolved;
  const uint32_t parent = path_of(range->parent);
  if (parent == kUnresolved) return kUnresolved;
  // Paths start at the step's phases: every measured call is inside a "step".
  if (range->name == step_name_) {
    range_paths_.emplace(range_id, parent);
    return parent;
  }
  const auto [it, inserted] = path_ids_.try_emplace({parent, range->name}, static_cast<uint32_t>(paths_.size()));
  if (inserted) {
    std::vector<uint32_t> path = paths_[parent];
    path.push_back(range->name);
    paths_.push_back(std::move(path));
  }
  range_paths_.emplace(range_id, it->second);
  return it->second;
}

int64_t OperatorSummaryBuilder::group_of(uint32_t path, uint32_t name, uint32_t shapes) {
  const auto [it, inserted] = group_ids_.try_emplace({path, name, shapes}, static_cast<int64_t>(groups_.size()));
  if (inserted) {
    Group group;
    group.path = path;
    group.name = name;
    group.shapes = shapes;
    groups_.push_back(std::move(group));
  }
  return it->second;
}

void OperatorSummaryBuilder::add_ranges(const std::vector<RangeRecord>& ranges) {
  for (const auto& r : ranges) {
    const bool closes = ranges_.add(r, string_id(r.name));
    if (r.step >= 0) steps_[r.step] = r.warmup;
    if (closes && r.name == step_ranges::kStep && r.step >= 0 && (!r.warmup || options_.include_warmup)) {
      measured_cpu_ns_ += r.end_ns - r.start_ns;
    }
  }
}

void OperatorSummaryBuilder::add_calls(const OperatorCallBatch& batch) {
  for (const auto& text : batch.strings) call_strings_.push_back(string_id(text));
  dropped_calls_ += batch.dropped_calls;
  for (const auto& c : batch.calls) {
    newest_ = std::max(newest_, c.end_ns);
    int64_t group = -1;
    const TimedRange* range = c.range_id != 0 ? ranges_.find(c.range_id) : nullptr;
    const bool named = c.name < call_strings_.size() && c.input_shapes < call_strings_.size();
    if (!named || (c.range_id != 0 && range == nullptr)) {
      ++dropped_calls_;  // its range was forgotten (or the batches came out of order): cannot be placed
    } else if (range != nullptr && measured(*range)) {
      const uint32_t path = path_of(c.range_id);
      if (path == kUnresolved) {
        ++dropped_calls_;
      } else {
        group = group_of(path, call_strings_[c.name], call_strings_[c.input_shapes]);
        Group& g = groups_[static_cast<size_t>(group)];
        ++g.calls;
        g.total_cpu += c.duration_ns();
        g.self_cpu += c.self_ns();
        ++operator_calls_;
      }
    }
    calls_[c.id] = Call{group, c.parent_id};
    call_expiry_.emplace_back(c.end_ns, c.id);
    // Kernels of calls nested in it that were attributed before it ended.
    const auto owed = owed_gpu_.find(c.id);
    if (owed != owed_gpu_.end()) {
      const int64_t duration = owed->second;
      owed_gpu_.erase(owed);
      if (group >= 0) groups_[static_cast<size_t>(group)].total_gpu += duration;
      add_gpu_time(c.parent_id, duration);
    }
  }
  attribute_pending(false);
  forget_old();
}

void OperatorSummaryBuilder::add_gpu_time(uint64_t parent, int64_t duration) {
  for (uint64_t id = parent; id != 0;) {
    const auto call = calls_.find(id);
    if (call == calls_.end()) {
      owed_gpu_[id] += duration;  // it has not ended yet
      return;
    }
    if (call->second.group >= 0) groups_[static_cast<size_t>(call->second.group)].total_gpu += duration;
    id = call->second.parent;
  }
}

void OperatorSummaryBuilder::add_activity(const ActivityBatch& batch) {
  dropped_records_ += batch.dropped_records;
  for (const auto& c : batch.correlations) {
    if (call_of_correlation_.emplace(c.correlation_id, c.external_id).second) {
      correlation_order_.push_back(c.correlation_id);
    }
  }
  for (const auto& api : batch.api) {
    newest_ = std::max(newest_, api.end_ns);
    uint64_t call = 0;
    const auto tagged = call_of_correlation_.find(api.correlation_id);
    if (tagged != call_of_correlation_.end()) {
      call = tagged->second;
      call_of_correlation_.erase(tagged);
    }
    if (!starts_gpu_work(api.name)) continue;
    launches_[api.correlation_id] = Launch{api.start_ns, api.thread_id, call, launches_graph(api.name)};
    launch_expiry_.emplace_back(api.end_ns, api.correlation_id);
  }
  // Records CUPTI could not time (0 timestamps) are left out, as the kernel summaries do.
  for (const auto& k : batch.kernels) {
    if (k.start_ns <= 0 || k.end_ns < k.start_ns) continue;
    pending_.push_back({kernels_.kernel(k.name), k.duration_ns(), k.correlation_id});
    activity_seen_ = true;
  }
  for (const auto& m : batch.memory) {
    if (m.start_ns <= 0 || m.end_ns < m.start_ns) continue;
    pending_.push_back({kernels_.copy_or_set(m.operation), m.duration_ns(), m.correlation_id});
    activity_seen_ = true;
  }
  attribute_pending(false);
  forget_old();
}

void OperatorSummaryBuilder::attribute_pending(bool final) {
  profiling::attribute_pending(
      pending_, [this](const Activity& activity) { return attribute(activity); }, options_.max_pending, final,
      unattributed_);
}

bool OperatorSummaryBuilder::attribute(const Activity& activity) {
  const auto found = launches_.find(activity.correlation);
  if (found == launches_.end()) return false;  // its launch record has not come yet
  const Launch launch = found->second;
  if (launch.call != 0) {
    const auto call = calls_.find(launch.call);
    if (call == calls_.end()) return false;  // the call has not ended yet
    if (!launch.many) launches_.erase(found);
    if (call->second.group >= 0) {
      credit(call->second.group, activity.kernel, activity.duration);
      add_gpu_time(call->second.parent, activity.duration);
    }
    return true;
  }
  if (!launch.many) launches_.erase(found);
  const TimedRange* range = ranges_.innermost(launch.thread, launch.start);
  if (range == nullptr) {
    ++unattributed_;
    return true;
  }
  if (!measured(*range)) return true;
  const uint32_t path = path_of(range->id);
  if (path == kUnresolved) {
    ++unattributed_;
    return true;
  }
  credit(group_of(path, string_id(kOutsideOperators), string_id("")), activity.kernel, activity.duration);
  return true;
}

void OperatorSummaryBuilder::credit(int64_t group, uint32_t kernel, int64_t duration) {
  Group& g = groups_[static_cast<size_t>(group)];
  g.self_gpu += duration;
  g.total_gpu += duration;
  auto& [launches, total] = g.kernels[kernel];
  ++launches;
  total += duration;
}

void OperatorSummaryBuilder::forget_old() {
  const int64_t horizon = newest_ - options_.attribution_window_ns;
  while (!launch_expiry_.empty() && launch_expiry_.front().first < horizon) {
    launches_.erase(launch_expiry_.front().second);
    launch_expiry_.pop_front();
  }
  while (!call_expiry_.empty() && call_expiry_.front().first < horizon) {
    calls_.erase(call_expiry_.front().second);
    call_expiry_.pop_front();
  }
  ranges_.forget_closed_before(horizon, [this](uint64_t id) { range_paths_.erase(id); });
  // Tags whose API record never came, and time owed to calls that will never come (dropped
  // beyond the recorder's bound): bounded, not kept for ever.
  while (correlation_order_.size() > options_.max_pending) {
    call_of_correlation_.erase(correlation_order_.front());
    correlation_order_.pop_front();
  }
  if (owed_gpu_.size() > options_.max_pending) owed_gpu_.clear();
}

OperatorProfile OperatorSummaryBuilder::build(bool final) {
  attribute_pending(final);
  OperatorProfile profile;
  for (const auto& [step, warmup] : steps_) {
    if (!warmup || options_.include_warmup) ++profile.measured_steps;
  }
  profile.measured_cpu_ns = measured_cpu_ns_;
  profile.operator_calls = operator_calls_;
  profile.dropped_calls = dropped_calls_;
  profile.unattributed_kernels = unattributed_;
  profile.gpu_activity_recorded = activity_seen_;
  if (dropped_records_ > 0) {
    profile.source_message = std::to_string(dropped_records_) + " GPU activity records were dropped by the source";
  }
  profile.operators.reserve(groups_.size());
  for (const Group& g : groups_) {
    OperatorStats s;
    for (uint32_t name : paths_[g.path]) s.range_path.push_back(strings_[name]);
    s.name = strings_[g.name];
    s.input_shapes = strings_[g.shapes];
    s.calls = g.calls;
    s.total_cpu_ns = g.total_cpu;
    s.self_cpu_ns = g.self_cpu;
    s.self_gpu_ns = g.self_gpu;
    s.total_gpu_ns = g.total_gpu;
    for (const auto& [kernel, launches_total] : g.kernels) {
      const KernelName& k = kernels_[kernel];
      s.kernels.push_back({k.name, k.short_name, k.category, launches_total.first, launches_total.second});
    }
    std::sort(s.kernels.begin(), s.kernels.end(), [](const OperatorKernel& a, const OperatorKernel& b) {
      return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
    });
    profile.operators.push_back(std::move(s));
  }
  // Largest self CPU first; the rest of the order does not depend on arrival.
  std::sort(profile.operators.begin(), profile.operators.end(), [](const OperatorStats& a, const OperatorStats& b) {
    return std::tie(b.self_cpu_ns, b.total_gpu_ns, a.range_path, a.name, a.input_shapes) <
           std::tie(a.self_cpu_ns, a.total_gpu_ns, b.range_path, b.name, b.input_shapes);
  });
  return profile;
}

}  // namespace stepscope::profiling
