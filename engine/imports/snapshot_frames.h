// What a snapshot's Python frames tell: a user's own file:line first, and the few memory
// categories the frames can show. Frames are matched by file path and function name only.
//
// Category rules, the first that applies (anything else is `other`, which views call unknown):
// 1. parameter: the alloc's frames pass through Module._apply (torch/nn/modules/module.py;
//    Module.to/cuda/half/... move parameters and buffers) or through an `__init__` or
//    `reset_parameters` in torch/nn/modules/ (a layer creating its weights). Buffers count too.
// 2. an optimizer's step: the alloc's frames pass through a function named `step` under
//    torch/optim/, or through torch/optim/optimizer.py's `wrapper` (which wraps every
//    optimizer's step, user-written ones too). Then by lifetime: optimizer_state when still
//    alive when the snapshot was taken (Adam's moments are made in the first step and kept),
//    temporary when freed in the trace.
// 3. gradient: the frames of its free (free_requested, else free_completed) pass through a
//    `zero_grad` under torch/optim/ or torch/nn/modules/: zero_grad(set_to_none=True) drops the
//    .grad tensors, so what it frees is gradients.
// What stays unknown, and why: autograd's backward allocates on its own thread, which has no
// Python frames, so a gradient alive at the end (or freed by anything but zero_grad) and
// backward's temporaries look alike; frames cannot tell a forward's activations (saved for
// backward) from its temporaries; blocks alive before recording have no alloc frames.
#pragma once

#include <cstdint>
#include <vector>

#include "imports/memory_snapshot.h"
#include "profiling/memory_events.h"

namespace stepscope::imports {

// Part of PyTorch or of Python itself: its file is under a folder named torch, or it is
// Python's own ("<frozen runpy>", "<string>").
bool is_torch_internal(const StackFrame& frame);

// The stack's frame indices, the frames that are not torch internals first (innermost first),
// then the internal ones (innermost first): a user reads their own file:line at the top.
std::vector<uint32_t> frames_user_first(const FrameStacks& stacks, uint32_t stack);

// Rules 1-3 above; `alloc_stack` and `free_stack` index FrameStacks::stacks (0: none),
// `freed`: the block was freed in the trace. Caches what it learns of each stack.
class SnapshotCategorizer {
 public:
  explicit SnapshotCategorizer(const FrameStacks& stacks);
  profiling::MemoryCategory category(uint32_t alloc_stack, uint32_t free_stack, bool freed);

 private:
  uint8_t traits(uint32_t stack);
  const FrameStacks& stacks_;
  std::vector<uint8_t> traits_;  // per stack: bits of what its frames pass through (0x80: not looked at yet)
};

}  // namespace stepscope::imports
