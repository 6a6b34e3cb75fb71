#include "cli/operator_digest.h"

#include <cstdio>
#include <string>

#include "profiling/operator_stats_schema.h"

namespace stepscope::cli {

namespace {

constexpr size_t kTopOperators = 8;
constexpr size_t kWhereWidth = 72;

std::string fitted(const std::string& text) {
  return text.size() <= kWhereWidth ? text : text.substr(0, kWhereWidth - 3) + "...";
}

}  // namespace

void print_operator_digest(std::ostream& out, const BenchResult& result) {
  if (!result.operator_profile) return;
  const auto& profile = *result.operator_profile;
  const int steps = profile.measured_steps;
  out << "operators of " << describe(result.config) << ", " << steps << " measured step(s):\n";
  if (steps <= 0 || profile.operators.empty()) {
    out << "  no operator ran in a measured step\n";
    return;
  }
  const double per_step_ms = 1e-6 / steps;
  int64_t self_cpu = 0;
  for (const auto& op : profile.operators) self_cpu += op.self_cpu_ns;
  char line[256];
  std::snprintf(line, sizeof line, "  %.1f calls a step; their self CPU time %.3f ms a step",
                static_cast<double>(profile.operator_calls) / steps, self_cpu * per_step_ms);
  out << line;
  if (profile.measured_cpu_ns > 0) {
    std::snprintf(line, sizeof line, ", %.1f%% of the steps' %.3f ms", 100.0 * self_cpu / profile.measured_cpu_ns,
                  profile.measured_cpu_ns * per_step_ms);
    out << line;
  }
  out << '\n';
  const bool gpu = profile.gpu_activity_recorded;
  char gpu_header[32] = "";
  if (gpu) std::snprintf(gpu_header, sizeof gpu_header, " %15s", "self GPU/step");
  std::snprintf(line, sizeof line, "  %13s %12s%s %10s  %s\n", "self CPU/step", "total/step", gpu_header, "calls/step",
                "operator [range] input shapes");
  out << line;
  for (size_t i = 0; i < profile.operators.size() && i < kTopOperators; ++i) {
    const auto& op = profile.operators[i];
    char gpu_cell[32] = "";
    if (gpu) std::snprintf(gpu_cell, sizeof gpu_cell, " %12.3f ms", op.self_gpu_ns * per_step_ms);
    std::snprintf(line, sizeof line, "  %10.3f ms %9.3f ms%s %10.1f  ", op.self_cpu_ns * per_step_ms,
                  op.total_cpu_ns * per_step_ms, gpu_cell, static_cast<double>(op.calls) / steps);
    out << line << op.name << " [" << profiling::range_path_text(op.range_path) << "] " << fitted(op.input_shapes)
        << '\n';
  }
  if (profile.dropped_calls > 0) {
    out << "  " << profile.dropped_calls << " operator calls were left out (beyond the recorder's bound)\n";
  }
  if (profile.unattributed_kernels > 0) {
    out << "  " << profile.unattributed_kernels << " kernels were launched outside every range\n";
  }
}

}  // namespace stepscope::cli
