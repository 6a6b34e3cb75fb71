// The kernel profile of an imported torch.profiler trace, built by the same KernelSummaryBuilder
// as Stepscope's own runs: kernels and copies per record_function range (nsys' columns), the
// category roll-up, GPU busy/idle per step and CPU time per range.
//
// Steps are the trace's ProfilerStep#N annotations (what torch.profiler writes when the loop
// calls prof.step()), each renamed "step" with its number N. A trace without them (profiled
// without a schedule) is taken as one step spanning everything on the thread that launched the
// most GPU work, and the notes say so. Every other annotation counts in the step whose span
// holds its start. As for our runs, a kernel belongs to the innermost annotation open on the
// thread that launched it, else (autograd's backward thread) on the steps' thread.
#pragma once

#include <string>
#include <vector>

#include "imports/torch_trace.h"
#include "profiling/kernel_profile.h"

namespace stepscope::imports {

struct TraceStep {
  int number = 0;  // N of ProfilerStep#N; 0 for the whole trace
  int64_t start_ns = 0, end_ns = 0;
};

// The steps of a trace as the kernel profile and the operator view take them (see above).
struct TraceSteps {
  std::vector<TraceStep> steps;  // by start
  uint32_t thread = 0;           // the training loop's: its ProfilerStep#N's, else the busiest
  bool whole_trace = false;      // no ProfilerStep#N: one step spanning everything
};

TraceSteps trace_steps(const TorchTrace& trace);

struct ImportedTraceProfile {
  profiling::KernelProfile profile;
  std::vector<std::string> notes;  // what a reader should know about how it was read
};

ImportedTraceProfile profile_torch_trace(const TorchTrace& trace);

// "ProfilerStep#12" -> 12; -1 for any other name.
int profiler_step_number(const std::string& range_name);

}  // namespace stepscope::imports
