// The DDP overlap pictures as one Chrome trace (JSON object form) for Perfetto: a process per
// rank ("rank 0", ...) with a track per lane (compute, communication) and a "rows" track naming
// which DDP row each stretch of time shows. Rows follow one another on the time axis (each
// picture's times are from its own step start), 1 ms apart.
#pragma once

#include <ostream>
#include <vector>

#include "experiments/ddp/ddp_timeline_schema.h"

namespace stepscope {

void write_timeline_trace(std::ostream& out, const std::vector<TimelineRow>& rows);

}  // namespace stepscope
