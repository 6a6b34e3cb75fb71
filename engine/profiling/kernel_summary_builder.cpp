#include "profiling/kernel_summary_builder.h"
#include "profiling/step_ranges.h"

#include <algorithm>
#include <cstdint>

#include "profiling/launch_calls.h"
#include "profiling/pending_activity.h"

namespace stepscope::profiling {

namespace {


StepGpuUsage usage_of(int step, std::vector<std::pair<int64_t, int64_t>> intervals) {
  StepGpuUsage usage;
  usage.step = step;
  usage.kernels = static_cast<int64_t>(intervals.size());
  if (intervals.empty()) return usage;
  std::sort(intervals.begin(), intervals.end());
  int64_t busy = 0, covered_until = intervals.front().first, total = 0;
  for (const auto& [start, end] : intervals) {
    total += end - start;
    const int64_t from = std::max(start, covered_until);
    if (end > from) busy += end - from;
    covered_until = std::max(covered_until, end);
  }
  usage.span_ns = covered_until - intervals.front().first;
  usage.busy_ns = busy;
  usage.idle_ns = usage.span_ns - busy;
  usage.mean_kernel_ns = static_cast<double>(total) / static_cast<double>(intervals.size());
  usage.launch_bound = usage.idle_ns > usage.busy_ns;
  return usage;
}

}  // namespace

KernelSummaryBuilder::KernelSummaryBuilder(SummaryOptions options)
    : options_(options),
      step_range_name_(intern_fixed_range_names()),
      ranges_(step_range_name_) {}

uint32_t KernelSummaryBuilder::intern_fixed_range_names() {
  range_name_id(kMeasuredWindow);  // 0
  return range_name_id(step_ranges::kStep);
}

uint32_t KernelSummaryBuilder::range_name_id(const std::string& name) {
  const auto [it, inserted] = range_name_ids_.try_emplace(name, static_cast<uint32_t>(range_names_.size()));
  if (inserted) range_names_.push_back(name);
  return it->second;
}

void KernelSummaryBuilder::add_ranges(const std::vector<RangeRecord>& ranges) {
  std::vector<const RangeRecord*> closing;
  for (const auto& r : ranges) {
    const bool closes = ranges_.add(r, range_name_id(r.name));
    if (r.step >= 0) steps_[r.step] = r.warmup;
    if (closes && r.step >= 0 && (!r.warmup || options_.include_warmup)) closing.push_back(&r);
  }
  // Timed once the whole batch is in: a recorder hands a closed range over before the copy of
  // its still open parent.
  for (const RangeRecord* r : closing) {
    const TimedRange* parent = ranges_.find(r->parent_id);
    const std::string& parent_name = parent != nullptr ? range_names_[parent->name] : std::string();
    auto& [count, total] = cpu_ranges_[{parent_name, r->name}];
    ++count;
    total += r->end_ns - r->start_ns;
  }
}

void KernelSummaryBuilder::add_activity(const ActivityBatch& batch) {
  dropped_ += batch.dropped_records;
  for (const auto& api : batch.api) {
    newest_ = std::max(newest_, api.end_ns);
    if (!starts_gpu_work(api.name)) continue;
    launches_[api.correlation_id] = Launch{api.start_ns, api.thread_id, launches_graph(api.name)};
    launch_expiry_.emplace_back(api.end_ns, api.correlation_id);
  }
  // CUPTI reports 0 for both timestamps of a record it could not time (one still in flight
  // when a buffer was forced out); such a record has no duration to summarise.
  const auto timed = [this](int64_t start, int64_t end) {
    if (start > 0 && end >= start) return true;
    ++untimed_;
    return false;
  };
  for (const auto& k : batch.kernels) {
    if (!timed(k.start_ns, k.end_ns)) continue;
    pending_.push_back({kernels_.kernel(k.name), k.start_ns, k.end_ns, k.correlation_id});
  }
  for (const auto& m : batch.memory) {
    if (!timed(m.start_ns, m.end_ns)) continue;
    pending_.push_back({kernels_.copy_or_set(m.operation), m.start_ns, m.end_ns, m.correlation_id});
  }
  attribute_pending(false);
  forget_old(newest_);
}

void KernelSummaryBuilder::attribute_pending(bool final) {
  profiling::attribute_pending(
      pending_, [this](const Activity& activity) { return attribute(activity); }, options_.max_pending, final,
      unattributed_);
}

bool KernelSummaryBuilder::attribute(const Activity& activity) {
  const auto launch = launches_.find(activity.correlation);
  if (launch == launches_.end()) return false;
  const int64_t when = launch->second.start;
  const uint32_t thread = launch->second.thread;
  if (!launch->second.many) launches_.erase(launch);
  const TimedRange* range = ranges_.innermost(thread, when);
  if (range == nullptr) {
    ++unattributed_;
    return true;
  }
  if (range->step < 0 || (range->warmup && !options_.include_warmup)) return true;
  // The range, its ancestors and the whole window, each once (a name may repeat up the chain).
  uint32_t names[32];
  size_t count = 0;
  names[count++] = 0;
  for (const TimedRange* r = range; r != nullptr && count < 32; r = ranges_.find(r->parent)) {
    if (std::find(names, names + count, r->name) == names + count) names[count++] = r->name;
  }
  const int64_t duration = activity.end - activity.start;
  for (size_t i = 0; i < count; ++i) {
    const uint64_t key = uint64_t{names[i]} << 32 | activity.kernel;
    stats_.try_emplace(key, options_.median_sample_cap).first->second.add(duration);
  }
  step_intervals_[range->step].emplace_back(activity.start, activity.end);
  return true;
}

void KernelSummaryBuilder::forget_old(int64_t newest) {
  const int64_t horizon = newest - options_.attribution_window_ns;
  while (!launch_expiry_.empty() && launch_expiry_.front().first < horizon) {
    launches_.erase(launch_expiry_.front().second);
    launch_expiry_.pop_front();
  }
  ranges_.forget_closed_before(horizon);
  // Steps two behind the newest active one are complete: keep their figures, not their intervals.
  if (!step_intervals_.empty()) {
    const int newest_step = step_intervals_.rbegin()->first;
    for (auto it = step_intervals_.begin(); it != step_intervals_.end() && it->first < newest_step - 1;) {
      finished_steps_[it->first] = usage_of(it->first, std::move(it->second));
      it = step_intervals_.erase(it);
    }
  }
}

KernelProfile KernelSummaryBuilder::build(bool final) {
  attribute_pending(final);
  KernelProfile profile;
  for (const auto& [step, warmup] : steps_) {
    if (!warmup || options_.include_warmup) ++profile.measured_steps;
  }
  std::map<std::string, RangeKernelSummary> by_range;
  for (const auto& [key, stats] : stats_) {
    const std::string& range_name = range_names_[key >> 32];
    const KernelName& info = kernels_[key & 0xffffffffu];
    auto& summary = by_range[range_name];
    summary.range = range_name;
    KernelStats k;
    k.name = info.name;
    k.short_name = info.short_name;
    k.category = info.category;
    k.instances = stats.count();
    k.total_ns = stats.total();
    k.min_ns = stats.min();
    k.max_ns = stats.max();
    k.mean_ns = stats.mean();
    k.median_ns = stats.median();
    k.stddev_ns = stats.stddev();
    k.instances_per_step =
        profile.measured_steps > 0 ? static_cast<double>(k.instances) / profile.measured_steps : 0.0;
    summary.gpu_time_ns += k.total_ns;
    summary.kernels.push_back(std::move(k));
  }
  for (auto& [name, summary] : by_range) {
    std::map<KernelCategory, CategoryShare> categories;
    for (auto& k : summary.kernels) {
      k.time_percent = summary.gpu_time_ns > 0 ? 100.0 * k.total_ns / summary.gpu_time_ns : 0.0;
      auto& share = categories[k.category];
      share.category = k.category;
      share.total_ns += k.total_ns;
      share.instances += k.instances;
    }
    for (auto& [category, share] : categories) {
      share.percent = summary.gpu_time_ns > 0 ? 100.0 * share.total_ns / summary.gpu_time_ns : 0.0;
      summary.categories.push_back(share);
    }
    // Largest first; ties by name, so the order does not depend on hashing.
    std::sort(summary.kernels.begin(), summary.kernels.end(), [](const KernelStats& a, const KernelStats& b) {
      return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
    });
    std::stable_sort(summary.categories.begin(), summary.categories.end(),
                     [](const auto& a, const auto& b) { return a.total_ns > b.total_ns; });
    profile.ranges.push_back(std::move(summary));
  }
  std::stable_sort(profile.ranges.begin(), profile.ranges.end(), [](const auto& a, const auto& b) {
    if ((a.range == kMeasuredWindow) != (b.range == kMeasuredWindow)) return a.range == kMeasuredWindow;
    return a.gpu_time_ns > b.gpu_time_ns;
  });
  profile.steps.reserve(finished_steps_.size() + step_intervals_.size());
  for (const auto& [step, usage] : finished_steps_) profile.steps.push_back(usage);
  for (const auto& [step, intervals] : step_intervals_) profile.steps.push_back(usage_of(step, intervals));
  for (const auto& [parent_name, count_total] : cpu_ranges_) {
    const auto [count, total] = count_total;
    profile.cpu_ranges.push_back({parent_name.second, count, total, count > 0 ? static_cast<double>(total) / count : 0.0,
                                  parent_name.first});
  }
  profile.dropped_records = dropped_;
  profile.unattributed_kernels = unattributed_;
  profile.untimed_records = untimed_;
  profile.gpu_activity_recorded = !stats_.empty();
  return profile;
}

}  // namespace stepscope::profiling
