// Records operator calls (from LibTorch's RecordFunction callbacks, through OperatorListener)
// on the clock of the ranges: each call's nesting on its thread, its innermost range and, with
// a GPU activity source, an external correlation id pushed for its duration so that the CUDA
// calls it makes (and so its kernels) carry its id. Memory is bounded: calls beyond the bound
// between two drains are counted, not kept.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profiling/operator_calls.h"
#include "compat/operator_listener.h"

namespace stepscope::profiling {

class ActivitySource;

struct OperatorRecorderOptions {
  bool input_shapes = true;  // group calls by their input shapes (LibTorch then hands us the inputs)
  size_t max_pending_calls = size_t{1} << 20;  // calls held between two drains
};

class OperatorRecorder final : public compat::OperatorListener {
 public:
  using Clock = std::function<int64_t()>;
  // `correlation` (may be null) gets a push at every call's start and a pop at its end, on the
  // calling thread; it must outlive the recorder.
  explicit OperatorRecorder(Clock clock, OperatorRecorderOptions options = {}, ActivitySource* correlation = nullptr);
  OperatorRecorder(const OperatorRecorder&) = delete;
  OperatorRecorder& operator=(const OperatorRecorder&) = delete;

  bool wants_input_shapes() const { return options_.input_shapes; }
  void operator_begin(const char* name, const compat::InputShapes* input_shapes) override;
  // An end without a matching begin on this thread (the call began before recording did) is ignored.
  void operator_end(const char* name) override;

  // Hands over the calls ended since the last drain, with the strings they introduce.
  OperatorCallBatch drain();

 private:
  struct OpenCall {
    const char* name = nullptr;  // the pointer the end will bring back
    uint64_t id = 0, parent_id = 0, range_id = 0;
    int64_t start_ns = 0, nested_ns = 0;
    uint32_t input_shapes = 0;
  };
  // What a thread keeps for itself, so that a call costs no lock but the one that hands its
  // record over: its open calls, and the string ids it has seen (names by their text, as views
  // of strings_, which never move; input shapes by their sizes as raw bytes, formatted only
  // the first time).
  struct ThreadCalls {
    uint64_t recorder = 0;  // the recorder these belong to (a thread outlives recorders)
    std::vector<OpenCall> open;
    std::unordered_map<std::string_view, uint32_t> names;
    std::unordered_map<std::string, uint32_t> shapes;
    std::string shape_key, shape_text;  // reused buffers
  };
  ThreadCalls& thread_calls();
  uint32_t shapes_id(ThreadCalls& thread, const compat::InputShapes& shapes);
  uint32_t intern(std::string_view text);  // with mutex_ held

  Clock clock_;
  OperatorRecorderOptions options_;
  ActivitySource* correlation_;
  const uint64_t serial_;  // tells this recorder's thread state from an earlier one's
  std::atomic<uint64_t> next_id_{1};

  std::mutex mutex_;  // guards what follows
  std::vector<OperatorCallRecord> pending_;
  std::deque<std::string> strings_;  // by id; a deque keeps the map's views valid
  std::unordered_map<std::string_view, uint32_t> string_ids_;
  size_t strings_handed_over_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace stepscope::profiling
