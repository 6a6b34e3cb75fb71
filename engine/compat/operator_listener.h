// What hears of every operator LibTorch runs while operators are profiled: the RecordFunction
// callbacks (compat/operator_callbacks.h) report to it, the operator recorder (profiling/)
// implements it. Plain C++, no LibTorch header, so that the recording logic above it is
// tested without LibTorch.
#pragma once

#include <cstdint>
#include <vector>

namespace stepscope::compat {

// The shapes of an operator's inputs in order; an input that is not a tensor (a scalar, a
// list, None) has the empty shape, as key_averages prints it: [].
using InputShapes = std::vector<std::vector<int64_t>>;

class OperatorListener {
 public:
  virtual ~OperatorListener() = default;
  // Called on the thread that runs the operator, at its entry and exit. `name` stays valid
  // until the matching end; the same pointer comes back there. `input_shapes` is null unless
  // shapes were asked for, and valid during the call only.
  virtual void operator_begin(const char* name, const InputShapes* input_shapes) = 0;
  virtual void operator_end(const char* name) = 0;
};

}  // namespace stepscope::compat
