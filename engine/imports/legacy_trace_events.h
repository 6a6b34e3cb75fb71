// The events of a trace PyTorch's profiler wrote without Kineto (1.13's CPU-only builds, Debian's
// python3-torch among them; profiler_util's EventList.export_chrome_trace): a bare JSON array of
// complete events ("ph": "X") with no "cat", pid "CPU functions", integer microseconds and empty
// "args" (no input shapes, whatever record_shapes said). Operators and record_function
// annotations look alike there; only the name tells them apart, as PyTorch names them:
// - an operator has a namespace ("aten::mm", "autograd::engine::evaluate_function: MmBackward0",
//   "torch::autograd::AccumulateGrad", "c10d::allreduce_"),
// - or is an autograd node ("MmBackward0", "SqueezeBackward1", "CopyBackwards"),
// - or is one of the few calls LibTorch records without a namespace ("detach", "detach_");
// - anything else is an annotation (record_function: "train_step", "Optimizer.step#AdamW.step",
//   "ProfilerStep#2"). A user's record_function named like an operator ("MyNet::forward") is taken
//   as one: the file holds nothing else to go by.
// A trace whose events carry "cat" (Kineto's, 1.13 and 2.x) is read by its categories instead;
// on PyTorch 2.11's (tests/data/torch_profiles/trace_cuda.json.gz) this rule gives every
// "cpu_op" and "user_annotation" event its category.
#pragma once

#include <string_view>

namespace stepscope::imports {

// Whether an event without a category is an operator (else a record_function annotation).
bool names_an_operator(std::string_view name);

}  // namespace stepscope::imports
