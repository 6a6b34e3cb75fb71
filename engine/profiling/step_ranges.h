// The ranges every measured step opens, by the names files, traces and views know them. Ranges
// are open-ended (layers, attention scores, softmax, ...); these are the ones the engine
// itself marks and the timeline, the summaries and the charts single out.
#pragma once

namespace stepscope::profiling::step_ranges {

inline constexpr const char* kStep = "step";
inline constexpr const char* kForward = "forward";
inline constexpr const char* kBackward = "backward";
inline constexpr const char* kOptimizerStep = "optimizer step";
// DDP: the model, gradient buffers and optimizer built, before the first step.
inline constexpr const char* kModelReady = "model ready";
// DDP: from backward's end until every gradient is the ranks' mean.
inline constexpr const char* kGradientSync = "gradient sync";
// Where a kernel's name follows the phase it ran in, in the DDP overlap picture: "backward: ...".
inline constexpr const char* kPhaseSeparator = ": ";
// The memory record's mark where a step's last phase ends.
inline constexpr const char* kStepEnd = "step end";
// The kernel summary of the whole run, ahead of every range's.
inline constexpr const char* kMeasuredWindow = "measured window";
// The phases of a step in order, for tables and charts that show each.
inline constexpr const char* kPhases[] = {kForward, kBackward, kOptimizerStep};

}  // namespace stepscope::profiling::step_ranges
