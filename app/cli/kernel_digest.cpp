#include "cli/kernel_digest.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "profiling/attention_balance.h"
#include "profiling/step_ranges.h"

namespace stepscope::cli {

namespace {

using profiling::KernelProfile;

constexpr int kTopKernels = 5;
constexpr size_t kNameWidth = 96;

std::string fitted(const std::string& text) {
  return text.size() <= kNameWidth ? text : text.substr(0, kNameWidth - 3) + "...";
}

void print_top_kernels(std::ostream& out, const profiling::RangeKernelSummary& window) {
  char line[256];
  std::snprintf(line, sizeof line, "  %7s %9s  %-16s %s\n", "time %", "per step", "category", "kernel");
  out << line;
  const int count = std::min<int>(kTopKernels, static_cast<int>(window.kernels.size()));
  for (int i = 0; i < count; ++i) {
    const auto& k = window.kernels[i];
    std::snprintf(line, sizeof line, "  %6.1f%% %9.1f  %-16s ", k.time_percent, k.instances_per_step,
                  to_string(k.category).c_str());
    out << line << fitted(k.short_name.empty() ? k.name : k.short_name) << '\n';
  }
}

void print_phase_categories(std::ostream& out, const KernelProfile& profile) {
  std::vector<const profiling::RangeKernelSummary*> phases;
  for (const char* name : profiling::step_ranges::kPhases) {
    if (const auto* summary = find_range(profile, name); summary && summary->gpu_time_ns > 0) phases.push_back(summary);
  }
  if (phases.empty()) return;
  // With more than one phase, the whole step beside them: how the mix shifts from forward to training.
  const auto* window = find_range(profile, profiling::step_ranges::kMeasuredWindow);
  if (phases.size() > 1 && window) phases.push_back(window);
  char cell[64];
  out << "  share of GPU time ";
  for (const auto* phase : phases) {
    std::snprintf(cell, sizeof cell, "%15s", phase == window ? "whole step" : phase->range.c_str());
    out << cell;
  }
  out << '\n';
  for (const auto category : profiling::all_kernel_categories()) {
    std::vector<double> shares;
    bool visible = false;
    for (const auto* phase : phases) {
      double percent = 0;
      for (const auto& share : phase->categories) {
        if (share.category == category) percent = share.percent;
      }
      visible = visible || percent >= 0.1;
      shares.push_back(percent);
    }
    if (!visible) continue;
    std::snprintf(cell, sizeof cell, "  %-17s", to_string(category).c_str());
    out << cell;
    for (double percent : shares) {
      std::snprintf(cell, sizeof cell, "%14.1f%%", percent);
      out << cell;
    }
    out << '\n';
  }
}

void print_gpu_usage(std::ostream& out, const KernelProfile& profile) {
  int64_t span = 0, busy = 0, launch_bound = 0;
  for (const auto& step : profile.steps) {
    span += step.span_ns;
    busy += step.busy_ns;
    launch_bound += step.launch_bound;
  }
  if (span <= 0) return;
  char line[160];
  std::snprintf(line, sizeof line, "  GPU busy %.1f%% of the steps' GPU span", 100.0 * busy / span);
  out << line;
  if (launch_bound > 0) out << "; " << launch_bound << " step(s) bound by kernel launches (gaps outweigh work)";
  out << '\n';
}

void print_cpu_ranges(std::ostream& out, const KernelProfile& profile) {
  if (profile.cpu_ranges.empty() || profile.measured_steps <= 0) return;
  auto ranges = profile.cpu_ranges;
  std::stable_sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) { return a.total_ns > b.total_ns; });
  out << "  CPU time per step:";
  for (const auto& range : ranges) {
    char cell[96];
    std::snprintf(cell, sizeof cell, " %s %.3f ms;", range.range.c_str(),
                  static_cast<double>(range.total_ns) / profile.measured_steps / 1e6);
    out << cell;
  }
  out << '\n';
}

}  // namespace

bool print_profile_digest(std::ostream& out, const KernelProfile& profile, const std::string& what) {
  out << "kernels of " << what << ", " << profile.measured_steps << " measured step(s):\n";
  const auto* window = find_range(profile, profiling::step_ranges::kMeasuredWindow);
  if (!profile.gpu_activity_recorded || !window || window->kernels.empty()) {
    out << "  no GPU activity recorded\n";
    print_cpu_ranges(out, profile);
    return false;
  }
  print_top_kernels(out, *window);
  print_phase_categories(out, profile);
  print_gpu_usage(out, profile);
  return true;
}

void print_kernel_digest(std::ostream& out, const BenchResult& result) {
  if (!result.kernel_profile) return;
  const auto& profile = *result.kernel_profile;
  if (!print_profile_digest(out, profile, describe(result.config))) return;
  if (const auto balance = profiling::attention_balance(profile, result.config.model.d_head())) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "  forward attention: softmax %.3f ms/step, attention matrix multiplies %.3f ms/step: "
                  "%.1fx the time for %.0fx the FLOPs\n",
                  balance->softmax_ns_per_step / 1e6, balance->matmul_ns_per_step / 1e6, balance->time_ratio(),
                  balance->flops_ratio);
    out << line;
  }
}

}  // namespace stepscope::cli
