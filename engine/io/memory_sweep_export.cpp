#include "io/memory_sweep_export.h"

#include <map>
#include <string>
#include <tuple>

#include "io/csv_writer.h"

namespace stepscope {

namespace {

std::string peak_cell(const BenchResult* r) {
  if (r == nullptr) return "";
  if (r->status == RunStatus::out_of_memory) return "OOM";
  if (r->status != RunStatus::ok || r->peak_memory_bytes < 0) return "";
  return std::to_string(r->peak_memory_bytes);
}

}  // namespace

bool has_memory_sweep(const std::vector<BenchResult>& results) {
  bool forward = false, train = false;
  for (const auto& r : results) {
    forward |= r.config.mode == StepMode::forward;
    train |= r.config.mode == StepMode::train;
  }
  return forward && train;
}

void write_memory_sweep_csv(std::ostream& out, const std::vector<BenchResult>& results) {
  using Key = std::tuple<std::string, int64_t, int64_t, std::string>;  // model, context, batch, precision
  std::map<Key, std::pair<const BenchResult*, const BenchResult*>> rows;  // forward, train
  std::vector<Key> order;
  for (const auto& r : results) {
    const Key key{r.config.model.name, r.config.context, r.config.batch, to_string(r.config.precision)};
    auto [it, inserted] = rows.try_emplace(key);
    if (inserted) order.push_back(key);
    if (r.config.mode == StepMode::forward) it->second.first = &r;
    if (r.config.mode == StepMode::train) it->second.second = &r;
  }
  CsvWriter csv(out);
  csv.write_row({"model", "context", "batch", "precision", "forward_peak_bytes", "train_step_peak_bytes"});
  for (const auto& key : order) {
    const auto& [forward, train] = rows.at(key);
    csv.write_row({std::get<0>(key), std::to_string(std::get<1>(key)), std::to_string(std::get<2>(key)),
                   std::get<3>(key), peak_cell(forward), peak_cell(train)});
  }
}

}  // namespace stepscope
