#include "cli/console_table.h"

#include <cstdio>
#include <string>

namespace stepscope::cli {

namespace {

std::string cell(const PhaseStats& stats) {
  if (stats.count == 0) return "-";
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.2f±%.2f", stats.mean_ms, stats.std_ms);
  return buffer;
}

std::string bytes(int64_t value) {
  if (value < 0) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f MiB", static_cast<double>(value) / (1024.0 * 1024.0));
  return buffer;
}

}  // namespace

void print_bench_table(std::ostream& out, const std::vector<BenchResult>& results) {
  char line[512];
  std::snprintf(line, sizeof line, "%-8s %6s %5s %4s %-16s %-9s %16s %16s %16s %16s %12s %6s %12s\n", "model",
                "ctx", "batch", "prec", "mode", "status", "total ms", "forward ms", "backward ms", "optimizer ms",
                "tokens/s", "MFU", "peak mem");
  out << line;
  for (const auto& r : results) {
    const auto& c = r.config;
    char mfu[16] = "-";
    if (r.mfu >= 0) std::snprintf(mfu, sizeof mfu, "%.1f%%", 100.0 * r.mfu);
    char tokens[32] = "-";
    if (r.total.count > 0) std::snprintf(tokens, sizeof tokens, "%.0f", r.tokens_per_second);
    std::snprintf(line, sizeof line, "%-8s %6lld %5lld %4s %-16s %-9s %16s %16s %16s %16s %12s %6s %12s\n",
                  c.model.name.c_str(), static_cast<long long>(c.context), static_cast<long long>(c.batch),
                  to_string(c.precision).c_str(), to_string(c.mode).c_str(), to_string(r.status).c_str(),
                  cell(r.total).c_str(), cell(r.forward).c_str(), cell(r.backward).c_str(),
                  cell(r.optimizer).c_str(), tokens, mfu, bytes(r.peak_memory_bytes).c_str());
    out << line;
    if (!r.message.empty()) out << "         " << r.message.substr(0, 200) << '\n';
  }
}

}  // namespace stepscope::cli
