#include "charts/range_phase_data.h"

#include <algorithm>
#include <map>
#include <set>

#include "profiling/step_ranges.h"

namespace stepscope::views {

namespace {

namespace step_ranges = profiling::step_ranges;

// Where a phase comes in a step: forward 0, backward 1, optimizer step 2; any other range 3.
int phase_rank(const std::string& name) {
  int rank = 0;
  for (const char* phase : step_ranges::kPhases) {
    if (name == phase) return rank;
    ++rank;
  }
  return rank;
}

bool is_phase(const std::string& name) { return phase_rank(name) < 3; }

class TreeBuilder {
 public:
  TreeBuilder(const std::vector<profiling::RangeCpuTiming>& ranges, double steps) : ranges_(ranges), steps_(steps) {
    // Records kept before ranges knew their parents: the phases are the step's.
    const bool no_parents = std::all_of(ranges.begin(), ranges.end(), [](const auto& r) { return r.parent.empty(); });
    std::set<std::string> names;
    for (const auto& r : ranges) names.insert(r.range);
    for (size_t i = 0; i < ranges.size(); ++i) {
      std::string parent = ranges[i].parent;
      if (no_parents && is_phase(ranges[i].range) && names.count(step_ranges::kStep)) parent = step_ranges::kStep;
      if (!names.count(parent)) parent.clear();  // its parent was not timed: shown at the top
      children_[parent].push_back(i);
    }
    for (auto& [parent, list] : children_) {
      std::sort(list.begin(), list.end(), [&](size_t a, size_t b) {
        const auto &ra = ranges[a], &rb = ranges[b];
        const int pa = phase_rank(ra.range), pb = phase_rank(rb.range);
        if (pa != pb) return pa < pb;
        if (ra.total_ns != rb.total_ns) return ra.total_ns > rb.total_ns;
        return ra.range < rb.range;
      });
    }
    visited_.assign(ranges.size(), false);
  }

  // Rows depth first; `row_children` gets the rows directly inside each row.
  void build(std::vector<RangeTimeRow>& rows, std::vector<std::vector<size_t>>& row_children) {
    rows_ = &rows;
    row_children_ = &row_children;
    for (size_t i : children_[std::string()]) {
      if (ranges_[i].range == step_ranges::kStep) step_ns_ = static_cast<double>(ranges_[i].total_ns) / steps_;
    }
    if (step_ns_ <= 0) {
      for (const auto& r : ranges_) {
        if (is_phase(r.range)) step_ns_ += static_cast<double>(r.total_ns) / steps_;
      }
    }
    visit(std::string(), 0, QString(), 0.0);
  }

 private:
  // Adds the ranges inside `parent`; returns their rows.
  std::vector<size_t> visit(const std::string& parent, int depth, const QString& phase, double phase_ns) {
    std::vector<size_t> added;
    const auto found = children_.find(parent);
    if (found == children_.end()) return added;
    for (size_t i : found->second) {
      if (visited_[i]) continue;  // a name nested in itself would loop
      visited_[i] = true;
      const auto& r = ranges_[i];
      RangeTimeRow row;
      row.range = QString::fromStdString(r.range);
      row.parent = QString::fromStdString(r.parent);
      row.depth = depth;
      row.calls_per_step = static_cast<double>(r.instances) / steps_;
      row.ns_per_step = static_cast<double>(r.total_ns) / steps_;
      row.ns_per_call = r.mean_ns;
      row.step_percent = step_ns_ > 0 ? 100.0 * row.ns_per_step / step_ns_ : -1;
      const bool phase_range = is_phase(r.range);
      row.phase = phase_range ? row.range : phase;
      if (!phase_range && !phase.isEmpty() && phase_ns > 0) row.phase_percent = 100.0 * row.ns_per_step / phase_ns;
      const size_t at = rows_->size();
      rows_->push_back(row);
      row_children_->emplace_back();
      added.push_back(at);
      (*row_children_)[at] = visit(r.range, depth + 1, row.phase, phase_range ? row.ns_per_step : phase_ns);
    }
    return added;
  }

  const std::vector<profiling::RangeCpuTiming>& ranges_;
  double steps_;
  double step_ns_ = 0;
  std::map<std::string, std::vector<size_t>> children_;  // by the parent's name
  std::vector<bool> visited_;
  std::vector<RangeTimeRow>* rows_ = nullptr;
  std::vector<std::vector<size_t>>* row_children_ = nullptr;
};

// The step's instances where the profile does not say how many steps it measured.
double step_count(const profiling::KernelProfile& profile) {
  if (profile.measured_steps > 0) return profile.measured_steps;
  for (const auto& r : profile.cpu_ranges) {
    if (r.range == step_ranges::kStep && r.parent.empty() && r.instances > 0) return static_cast<double>(r.instances);
  }
  return 1;
}

}  // namespace

RangePhaseData build_range_phase_data(const profiling::KernelProfile& profile) {
  RangePhaseData data;
  data.measured_steps = profile.measured_steps;
  std::vector<std::vector<size_t>> row_children;
  TreeBuilder(profile.cpu_ranges, step_count(profile)).build(data.rows, row_children);

  // The step bar, then one per phase (the first row of each: where it is nested in the step).
  std::vector<size_t> bar_rows;
  for (size_t i = 0; i < data.rows.size(); ++i) {
    if (data.rows[i].range == step_ranges::kStep && data.rows[i].depth == 0) {
      bar_rows.push_back(i);
      break;
    }
  }
  for (const char* phase : step_ranges::kPhases) {
    for (size_t i = 0; i < data.rows.size(); ++i) {
      if (data.rows[i].range != phase) continue;
      if (data.rows[i].ns_per_step > 0) bar_rows.push_back(i);
      break;
    }
  }
  std::map<QString, size_t> segment_of;
  const auto add = [&](const QString& range, size_t bar, double ns) {
    auto [it, inserted] = segment_of.try_emplace(range, data.segments.size());
    if (inserted) data.segments.push_back({range, std::vector<double>(bar_rows.size(), 0.0)});
    data.segments[it->second].ns_per_step[bar] += ns;
  };
  for (size_t bar = 0; bar < bar_rows.size(); ++bar) {
    const RangeTimeRow& row = data.rows[bar_rows[bar]];
    data.bars << row.range;
    data.bar_ns_per_step.push_back(row.ns_per_step);
    double inside = 0;
    for (size_t child : row_children[bar_rows[bar]]) {
      add(data.rows[child].range, bar, data.rows[child].ns_per_step);
      inside += data.rows[child].ns_per_step;
    }
    if (row.ns_per_step - inside > 0) add(QString::fromLatin1(kOutsideRanges), bar, row.ns_per_step - inside);
  }
  // The rest last, so that it reads as the remainder of each bar.
  const auto outside = segment_of.find(QString::fromLatin1(kOutsideRanges));
  if (outside != segment_of.end()) {
    std::rotate(data.segments.begin() + static_cast<std::ptrdiff_t>(outside->second),
                data.segments.begin() + static_cast<std::ptrdiff_t>(outside->second) + 1, data.segments.end());
  }

  if (data.rows.empty()) {
    data.note = QStringLiteral("No CPU range timed yet");
  } else if (data.bars.isEmpty()) {
    data.note = QStringLiteral("No step or phase range timed");
  }
  return data;
}

}  // namespace stepscope::views
