// A torch.profiler Chrome trace (`prof.export_chrome_trace(path)`, PyTorch 1.13 and 2.x, plain
// JSON or gzip) read into the records Stepscope's own profilers produce: CPU ranges (the user's
// record_function annotations and ProfilerStep#N), CUDA runtime/driver calls, kernels, copies
// and sets, each kept compact. The file is parsed as a stream (one event at a time), so a trace
// of hundreds of MB costs its records, not a document tree.
//
// Two layouts, told apart by what the file holds, not by a version: Kineto's (an object with
// "traceEvents", each event with its "cat"), and the legacy exporter's of PyTorch without Kineto
// (1.13's CPU builds: a bare array of events without "cat"; legacy_trace_events.h says how its
// operators are told from its annotations). An event either way is read by its own members.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "profiling/activity_records.h"

namespace stepscope::imports {

// Not a trace this reader can use: the message names the file and, where it can, the event.
class TraceImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An annotation (record_function, ProfilerStep#N) on one CPU thread.
struct TraceRange {
  std::string name;
  uint32_t thread = 0;  // index into TorchTrace::threads
  int64_t start_ns = 0, end_ns = 0;
};

// A CUDA runtime or driver call, by its correlation id (launches, copies and sets tie GPU work
// to the thread and time they were made on).
struct TraceApiCall {
  uint32_t correlation = 0;
  uint32_t thread = 0;
  int64_t start_ns = 0, end_ns = 0;
  uint32_t name = 0;  // index into TorchTrace::api_names
  bool driver = false;
};

// An operator (cat "cpu_op"): an ATen operator or an autograd node, on the CPU thread that ran it.
struct TraceOperator {
  uint32_t name = 0;    // index into TorchTrace::operator_names
  uint32_t shapes = 0;  // index into TorchTrace::shape_texts: its "Input Dims" ("[]" when not recorded)
  uint32_t thread = 0;  // index into TorchTrace::threads
  int64_t start_ns = 0, end_ns = 0;
};

// A kernel, copy or set on the GPU.
struct TraceActivity {
  uint32_t name = 0;  // kernels: index into kernel_names; copies and sets: unused
  int64_t start_ns = 0, end_ns = 0;
  uint32_t correlation = 0;
  uint32_t device = 0, stream = 0;
  uint64_t bytes = 0;  // copies and sets
  bool is_memory = false;
  profiling::MemoryOperation operation = profiling::MemoryOperation::copy_other;
};

struct TorchTrace {
  std::vector<std::string> threads;  // "pid/tid" as the trace names them
  std::vector<std::string> api_names;
  std::vector<std::string> kernel_names;  // as the trace writes them (already demangled)
  std::vector<TraceRange> ranges;
  std::vector<TraceApiCall> api_calls;
  std::vector<TraceActivity> activities;  // kernels, copies and sets, in file order
  std::vector<TraceOperator> operators;   // cpu_op events, in file order
  std::vector<std::string> operator_names;
  // Input shapes as key_averages(group_by_input_shape=True) prints them: "[[64, 64], [64, 64]]";
  // a tensor list keeps its tensors' shapes ("[[[2, 4], [2, 4]], []]") where key_averages prints "[]".
  std::vector<std::string> shape_texts;
  int64_t events = 0;                     // every trace event read
  int64_t skipped_events = 0;             // events of kinds this reader does not use
  // Complete events without a "cat" (the legacy exporter's), read as operators or annotations by
  // their names (legacy_trace_events.h).
  int64_t uncategorized_events = 0;
  bool input_shapes_recorded = false;     // any operator carries "Input Dims"
  std::vector<std::string> devices;       // deviceProperties' names, when the trace has them
  std::string schema_version;             // the trace's "schemaVersion", "" when absent
  // The trace's "baseTimeNanoseconds" (PyTorch 2.x): event times + this = Unix time; -1 when absent.
  int64_t base_time_ns = -1;
};

struct TraceReadOptions {
  // Called now and then with the share of the file read (0..1); returning false cancels the
  // import (TraceImportError "cancelled").
  std::function<bool(double fraction)> progress;
};

// Throws TraceImportError for a file that cannot be read, is not JSON, has no trace events, or
// is gzip-compressed in a build without zlib.
TorchTrace read_torch_trace(const std::string& path, const TraceReadOptions& options = {});
// The same from text already in memory (tests, and files a caller decompressed itself).
TorchTrace read_torch_trace_text(const std::string& text, const std::string& name = "trace");

// Throws TraceImportError naming `name` when the trace holds no event this reader uses (no
// operator, annotation, CUDA call or GPU activity): a JSON array or object of something else.
void require_trace_events(const TorchTrace& trace, const std::string& name);

// Whether this build reads gzip-compressed traces.
bool reads_gzip();

}  // namespace stepscope::imports
