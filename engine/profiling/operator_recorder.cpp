#include "profiling/operator_recorder.h"

#include "profiling/activity_source.h"
#include "profiling/input_shapes_text.h"
#include "profiling/range_recorder.h"

namespace stepscope::profiling {

namespace {

std::atomic<uint64_t> g_next_serial{1};

}  // namespace

OperatorRecorder::OperatorRecorder(Clock clock, OperatorRecorderOptions options, ActivitySource* correlation)
    : clock_(std::move(clock)), options_(options), correlation_(correlation), serial_(g_next_serial.fetch_add(1)) {
  strings_.emplace_back();
  string_ids_.emplace(strings_.back(), 0);
  pending_.reserve(4096);
}

OperatorRecorder::ThreadCalls& OperatorRecorder::thread_calls() {
  thread_local ThreadCalls calls;
  if (calls.recorder != serial_) {
    calls.recorder = serial_;
    calls.open.clear();
    calls.names.clear();
    calls.shapes.clear();
  }
  return calls;
}

uint32_t OperatorRecorder::shapes_id(ThreadCalls& thread, const compat::InputShapes& shapes) {
  std::string& key = thread.shape_key;
  key.clear();
  for (const auto& shape : shapes) {
    const int64_t rank = static_cast<int64_t>(shape.size());
    key.append(reinterpret_cast<const char*>(&rank), sizeof rank);
    key.append(reinterpret_cast<const char*>(shape.data()), shape.size() * sizeof(int64_t));
  }
  const auto known = thread.shapes.find(key);
  if (known != thread.shapes.end()) return known->second;
  thread.shape_text.clear();
  append_input_shapes_text(thread.shape_text, shapes);
  uint32_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id = intern(thread.shape_text);
  }
  thread.shapes.emplace(key, id);
  return id;
}

void OperatorRecorder::operator_begin(const char* name, const compat::InputShapes* input_shapes) {
  ThreadCalls& thread = thread_calls();
  OpenCall call;
  call.name = name;
  call.id = next_id_.fetch_add(1, std::memory_order_relaxed);
  call.parent_id = thread.open.empty() ? 0 : thread.open.back().id;
  call.range_id = current_range_id();
  if (input_shapes != nullptr && options_.input_shapes) call.input_shapes = shapes_id(thread, *input_shapes);
  if (correlation_ != nullptr) correlation_->push_correlation(call.id);
  // Last, so that the bookkeeping above is not counted in the operator's time.
  call.start_ns = clock_();
  thread.open.push_back(call);
}

void OperatorRecorder::operator_end(const char* name) {
  const int64_t end = clock_();
  ThreadCalls& thread = thread_calls();
  size_t index = thread.open.size();
  while (index > 0 && thread.open[index - 1].name != name) --index;
  if (index == 0) return;  // began before this recorder did
  // Calls opened above it never ended (LibTorch ends every call it begins, so this is a
  // safeguard): forget them, and their correlation ids.
  for (size_t above = thread.open.size(); above > index; --above) {
    if (correlation_ != nullptr) correlation_->pop_correlation();
  }
  const OpenCall call = thread.open[index - 1];
  thread.open.resize(index - 1);
  if (correlation_ != nullptr) correlation_->pop_correlation();
  const int64_t duration = end - call.start_ns;
  if (!thread.open.empty()) thread.open.back().nested_ns += duration;

  OperatorCallRecord record;
  record.id = call.id;
  record.parent_id = call.parent_id;
  record.range_id = call.range_id;
  record.input_shapes = call.input_shapes;
  record.thread_id = current_thread_id();
  record.start_ns = call.start_ns;
  record.end_ns = end;
  record.nested_ns = call.nested_ns;
  const auto known = thread.names.find(std::string_view(name));
  std::lock_guard<std::mutex> lock(mutex_);
  if (pending_.size() >= options_.max_pending_calls) {
    ++dropped_;
    return;
  }
  if (known != thread.names.end()) {
    record.name = known->second;
  } else {
    record.name = intern(name);
    thread.names.emplace(strings_[record.name], record.name);  // a view of the kept string
  }
  pending_.push_back(record);
}

uint32_t OperatorRecorder::intern(std::string_view text) {
  const auto found = string_ids_.find(text);
  if (found != string_ids_.end()) return found->second;
  const auto id = static_cast<uint32_t>(strings_.size());
  strings_.emplace_back(text);
  string_ids_.emplace(strings_.back(), id);
  return id;
}

OperatorCallBatch OperatorRecorder::drain() {
  OperatorCallBatch batch;
  batch.calls.reserve(4096);
  std::lock_guard<std::mutex> lock(mutex_);
  batch.calls.swap(pending_);
  batch.strings.assign(strings_.begin() + static_cast<std::ptrdiff_t>(strings_handed_over_), strings_.end());
  strings_handed_over_ = strings_.size();
  batch.dropped_calls = dropped_;
  dropped_ = 0;
  return batch;
}

}  // namespace stepscope::profiling
