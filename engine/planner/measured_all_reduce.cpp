#include "planner/measured_all_reduce.h"

#include "core/config_error.h"
#include "experiments/collectives/collective_schema.h"
#include "experiments/ddp/bucket_overhead_reading.h"
#include "io/run_record_json.h"

namespace stepscope::planner {

AllReduceFit measured_all_reduce(const std::string& path) {
  RunRecord record;
  try {
    record = read_run_record_file(path);  // bounded: /dev/zero is refused by its size
  } catch (const RunRecordError& e) {
    throw ConfigError(e.what(), "allreduce");
  }
  for (const auto& table : record.tables) {
    if (table.schema != collective_schema().id) continue;
    const auto rows = collective_rows(table);
    const auto keys = all_reduce_keys(rows);
    if (keys.empty()) break;
    return fit_all_reduce(all_reduce_samples(rows, keys.front()));
  }
  throw ConfigError(path + " has no measured all-reduce rows", "allreduce");
}

}  // namespace stepscope::planner
