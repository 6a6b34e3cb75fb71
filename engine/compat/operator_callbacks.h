// LibTorch's RecordFunction callbacks for the operator profiler: the only code that knows how
// LibTorch reports operators (its API is alike in 1.13 and 2.x). Installed globally, so that
// operators on every thread are seen, autograd's device threads (which run the backward pass
// on a GPU) included. Without an instance nothing is installed and operators cost nothing.
#pragma once

#include <cstdint>

#include "compat/operator_listener.h"

namespace stepscope::compat {

class OperatorCallbacks {
 public:
  // Reports every ATen operator (RecordScope::FUNCTION) and autograd node (BACKWARD_FUNCTION)
  // to `listener`, with the shapes of their tensor inputs where `input_shapes` (LibTorch then
  // hands the inputs over, which costs a little per call). One instance at a time per process:
  // throws std::logic_error for a second. Destroy it while no operator runs (between steps);
  // the listener must outlive it.
  OperatorCallbacks(OperatorListener& listener, bool input_shapes);
  ~OperatorCallbacks();
  OperatorCallbacks(const OperatorCallbacks&) = delete;
  OperatorCallbacks& operator=(const OperatorCallbacks&) = delete;

 private:
  uint64_t handle_ = 0;
};

}  // namespace stepscope::compat
