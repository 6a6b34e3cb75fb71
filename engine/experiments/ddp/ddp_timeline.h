// The overlap picture of the DDP experiments: for one measured step of a row, on every rank,
// what ran when: the compute phases (forward, backward, optimizer) and every gradient
// communication (from its start to its completion), or, on GPUs, the kernels CUPTI saw with
// NCCL's as communication. Times are ms from that rank's step start. No LibTorch here.
#pragma once

#include <string>
#include <vector>

#include "experiments/ddp/ddp_types.h"

namespace stepscope {

// The row of the picture a span is drawn on.
enum class TimelineLane { compute, communication };
std::string to_string(TimelineLane lane);
TimelineLane parse_timeline_lane(const std::string& text);  // ConfigError for other text

struct TimelineSpan {
  TimelineLane lane = TimelineLane::compute;
  std::string name;  // "forward", "backward", "optimizer", "all_reduce 12 (4.0 MiB)", a kernel
  double start_ms = 0;
  double end_ms = 0;
};

// One rank's step of one DDP row.
struct RankStepTimeline {
  DdpConfig config;  // variant, bucket size, ranks
  int rank = 0;
  int step = 0;  // 0-based among measured steps: the measured count, one more step after them
  std::vector<TimelineSpan> spans;
};

}  // namespace stepscope
