// Where a profiled step's CPU time goes, by range: what the Kernels tab shows where no GPU
// kernels were recorded (a CPU run). Built once from a KernelProfile's CPU range timings for
// both the range table and the phase chart, so the two always agree.
#pragma once

#include <QString>
#include <QStringList>
#include <vector>

#include "profiling/kernel_profile.h"

namespace stepscope::views {

// One range name under one enclosing range, over the measured steps.
struct RangeTimeRow {
  QString range;
  QString parent;  // the enclosing range's name; "" at the top
  QString phase;   // "forward", "backward" or "optimizer step" it ran in; "" outside them
  int depth = 0;   // how deep in the step's tree of ranges (the step itself is 0)
  double calls_per_step = 0;  // a block's range runs once per layer: calls = layers
  double ns_per_step = 0;
  double ns_per_call = 0;  // per layer, for a block's range
  double step_percent = -1;   // of the step's time; < 0 when the profile has no step time
  double phase_percent = -1;  // of its phase's time; < 0 for the step and the phases themselves
};

// One stacked part of the chart: a range's time per step in each bar (0 where it is not in it).
struct RangePhaseSegment {
  QString range;
  std::vector<double> ns_per_step;  // per bar
};

struct RangePhaseData {
  std::vector<RangeTimeRow> rows;  // the tree in reading order: a range, then those inside it
  QStringList bars;                // "step", then each phase measured, in step order
  std::vector<double> bar_ns_per_step;
  // The bars split: the step into its phases, each phase into the ranges directly inside it;
  // kOutsideRanges holds the time no narrower range covers.
  std::vector<RangePhaseSegment> segments;
  int measured_steps = 0;
  QString note;  // why there is nothing to show, when there is nothing
};

// The segment of a bar's time that no range inside it covers (embeddings, gradient zeroing).
inline constexpr const char* kOutsideRanges = "other";

RangePhaseData build_range_phase_data(const profiling::KernelProfile& profile);

}  // namespace stepscope::views
