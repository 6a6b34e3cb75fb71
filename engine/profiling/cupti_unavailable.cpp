// CPU builds have no CUPTI: the profiler reports CPU range timings only.
#include "profiling/activity_source.h"

namespace stepscope::profiling {
std::unique_ptr<ActivitySource> make_cupti_activity_source() { return nullptr; }
}  // namespace stepscope::profiling
