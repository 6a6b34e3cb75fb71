#include "compare/kernel_comparison.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "profiling/step_ranges.h"

namespace stepscope::compare {

double kernel_movement(const ComparisonRow& r) { return std::fabs(r.b.value_or(0) - r.a.value_or(0)); }

std::vector<ComparisonRow> compare_kernel_totals(const profiling::KernelProfile& a, const profiling::KernelProfile& b,
                                                 const ComparisonRow& pair) {
  const auto* ra = profiling::find_range(a, profiling::step_ranges::kMeasuredWindow);
  const auto* rb = profiling::find_range(b, profiling::step_ranges::kMeasuredWindow);
  if (ra == nullptr || rb == nullptr) return {};
  std::map<std::string, size_t> index;  // full name -> row
  std::vector<ComparisonRow> rows;
  for (const auto* summary : {ra, rb}) {
    for (const auto& k : summary->kernels) {
      auto [it, inserted] = index.try_emplace(k.name, rows.size());
      if (inserted) {
        ComparisonRow r;
        r.table = kKernelTotals;
        r.configuration = pair.configuration;
        r.pairing = pair.pairing;
        r.changes = pair.changes;
        r.a_status = pair.a_status;
        r.b_status = pair.b_status;
        r.metric = k.short_name.empty() ? k.name : k.short_name;
        r.metric_key = k.name;
        r.kind = schema::ColumnKind::nanoseconds;
        rows.push_back(std::move(r));
      }
      // A name twice in one summary (it should not be): the totals add up, nothing is lost.
      auto& total = summary == ra ? rows[it->second].a : rows[it->second].b;
      total = total.value_or(0) + static_cast<double>(k.total_ns);
    }
  }
  for (auto& r : rows) {
    if (!r.a) r.note = "A ran no such kernel";
    if (!r.b) r.note = "B ran no such kernel";
  }
  std::stable_sort(rows.begin(), rows.end(), [](const ComparisonRow& x, const ComparisonRow& y) {
    return kernel_movement(x) > kernel_movement(y);
  });
  return rows;
}

}  // namespace stepscope::compare
