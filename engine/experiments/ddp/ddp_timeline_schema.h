// The overlap picture as a table, so it travels like every result (worker rows, CSV, run
// record, history): one row per span, keyed by the DDP row (variant, bucket_mb, optimizer, nproc), the
// rank and the step; lane (compute or communication), name, start_ms and end_ms from that
// rank's step start.
#pragma once

#include <vector>

#include "experiments/ddp/ddp_timeline.h"
#include "schema/schema.h"

namespace stepscope {

struct TimelineRow {
  DdpConfig config;
  int rank = 0;
  int step = 0;
  TimelineSpan span;
};

const schema::Schema<TimelineRow>& ddp_timeline_schema();
std::vector<TimelineRow> timeline_rows(const RankStepTimeline& timeline);

}  // namespace stepscope
