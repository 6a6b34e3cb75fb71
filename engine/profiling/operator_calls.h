// Operator calls as the recorder hands them over: plain data for the summary builder and the
// trace. Names and input-shape texts are interned: a step runs thousands of calls of a few
// dozen operators.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stepscope::profiling {

struct OperatorCallRecord {
  uint64_t id = 0;         // unique, > 0: the external correlation id its CUDA calls carry
  uint64_t parent_id = 0;  // the operator open around it on the same thread; 0 for none
  // The innermost range open at its start: on its own thread, or, on a thread that marks no
  // ranges (autograd's), the one open on the thread that runs the steps. 0 outside every range.
  uint64_t range_id = 0;
  uint32_t name = 0;          // index into the strings (OperatorCallBatch)
  uint32_t input_shapes = 0;  // likewise; 0, the empty string, where shapes were not recorded
  uint32_t thread_id = 0;     // current_thread_id() of the thread that ran it
  int64_t start_ns = 0;       // on the clock of the ranges (the activity source's)
  int64_t end_ns = 0;
  int64_t nested_ns = 0;  // the total time of the operators called inside it on its thread
  int64_t duration_ns() const { return end_ns - start_ns; }
  int64_t self_ns() const { return end_ns - start_ns - nested_ns; }
};

struct OperatorCallBatch {
  std::vector<OperatorCallRecord> calls;  // in the order they ended: a nested call before its parent
  // The strings interned since the previous batch (these calls' new names and shapes among
  // them); numbered on from the previous batch's (string 0 is "", in the first batch), so that
  // a reader appends them to its table.
  std::vector<std::string> strings;
  uint64_t dropped_calls = 0;  // ended beyond the recorder's bound since the last batch
};

}  // namespace stepscope::profiling
