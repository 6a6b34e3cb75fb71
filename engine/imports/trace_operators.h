// The operators of an imported torch.profiler trace (its "cpu_op" events) as Stepscope's operator
// profile, so that a user's own model reads like ours: per annotation path, operator and input
// shapes, the calls, CPU time and the GPU kernels each operator launched.
//
// Rules, as implemented (tests/reference/torch_trace_summary.py computes the same independently):
// - Steps are those of the kernel profile (imports/torch_trace_profile.h): an operator counts when
//   it starts inside one; a kernel when the runtime call that launched it does.
// - Range path: the record_function annotations open at the operator's start on its own thread
//   (ProfilerStep#N left out), outermost first; on a thread without annotations (autograd's
//   backward thread), those open at that moment on the steps' thread.
// - Self CPU: the operator's time less that of the operators nested directly in it on the same
//   thread. Nested means lying within, as key_averages takes it: one that starts inside another
//   but ends after it is not nested in it; of two with the same span, the first in the file
//   holds the second. torch.profiler's key_averages also takes the CUDA runtime calls out (the launches'
//   time), so its Self CPU is lower by those.
// - Kernels: a kernel, copy or set is tied to its runtime call by "correlation", and launched by
//   the innermost operator open on that call's thread at the call's start; its time counts as
//   self GPU time of that operator and as total GPU time of it and every operator it is nested
//   in. One launched outside every operator is listed under profiling::kOutsideOperators for the
//   path open at its launch. One whose launch is not in the trace, or falls outside every step,
//   counts in unattributed_kernels.
#pragma once

#include "imports/torch_trace.h"
#include "profiling/operator_profile.h"

namespace stepscope::imports {

profiling::OperatorProfile trace_operator_profile(const TorchTrace& trace);

}  // namespace stepscope::imports
