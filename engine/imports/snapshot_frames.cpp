#include "imports/snapshot_frames.h"

#include <string_view>

namespace stepscope::imports {

namespace {

using profiling::MemoryCategory;

constexpr uint8_t kNotYet = 0x80;
constexpr uint8_t kCreatesParameters = 1;
constexpr uint8_t kOptimizerStep = 2;
constexpr uint8_t kZeroGrad = 4;

// `folder` ("torch/optim/") appears in the path, with either separator.
bool under(std::string_view filename, std::string_view folder) {
  if (filename.find(folder) != std::string_view::npos) return true;
  if (filename.find('\\') == std::string_view::npos) return false;
  std::string windows(folder);
  for (char& c : windows) {
    if (c == '/') c = '\\';
  }
  return filename.find(windows) != std::string_view::npos;
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

uint8_t frame_traits(const StackFrame& f) {
  uint8_t t = 0;
  const std::string_view file = f.filename, name = f.name;
  if (under(file, "torch/nn/modules/")) {
    if (name == "_apply" || name == "__init__" || name == "reset_parameters") t |= kCreatesParameters;
    if (name == "zero_grad") t |= kZeroGrad;
  }
  if (under(file, "torch/optim/")) {
    if (name == "step" || (name == "wrapper" && (ends_with(file, "optimizer.py")))) t |= kOptimizerStep;
    if (name == "zero_grad") t |= kZeroGrad;
  }
  return t;
}

}  // namespace

bool is_torch_internal(const StackFrame& frame) {
  const std::string_view file = frame.filename;
  return (!file.empty() && file.front() == '<') || under(file, "/torch/") || file.rfind("torch/", 0) == 0;
}

std::vector<uint32_t> frames_user_first(const FrameStacks& stacks, uint32_t stack) {
  std::vector<uint32_t> order;
  if (stack >= stacks.stacks.size()) return order;
  const std::vector<uint32_t>& frames = stacks.stacks[stack];
  order.reserve(frames.size());
  for (uint32_t f : frames) {
    if (!is_torch_internal(stacks.frames[f])) order.push_back(f);
  }
  for (uint32_t f : frames) {
    if (is_torch_internal(stacks.frames[f])) order.push_back(f);
  }
  return order;
}

SnapshotCategorizer::SnapshotCategorizer(const FrameStacks& stacks)
    : stacks_(stacks), traits_(stacks.stacks.size(), kNotYet) {}

uint8_t SnapshotCategorizer::traits(uint32_t stack) {
  if (stack >= traits_.size()) return 0;
  if (traits_[stack] == kNotYet) {
    uint8_t t = 0;
    for (uint32_t f : stacks_.stacks[stack]) t |= frame_traits(stacks_.frames[f]);
    traits_[stack] = t;
  }
  return traits_[stack];
}

MemoryCategory SnapshotCategorizer::category(uint32_t alloc_stack, uint32_t free_stack, bool freed) {
  const uint8_t allocated = traits(alloc_stack);
  if (allocated & kCreatesParameters) return MemoryCategory::parameter;
  if (allocated & kOptimizerStep) return freed ? MemoryCategory::temporary : MemoryCategory::optimizer_state;
  if (freed && (traits(free_stack) & kZeroGrad)) return MemoryCategory::gradient;
  return MemoryCategory::other;
}

}  // namespace stepscope::imports
