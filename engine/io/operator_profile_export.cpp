#include "io/operator_profile_export.h"

#include "io/table_csv.h"
#include "profiling/operator_stats_schema.h"

namespace stepscope {

void write_operator_csv(std::ostream& out, const profiling::OperatorProfile& profile) {
  write_table_csv(out, profiling::operator_stats_schema().table(profiling::operator_rows(profile)));
}

void write_operator_kernel_csv(std::ostream& out, const profiling::OperatorProfile& profile) {
  write_table_csv(out, profiling::operator_kernel_schema().table(profiling::operator_kernel_rows(profile)));
}

}  // namespace stepscope
