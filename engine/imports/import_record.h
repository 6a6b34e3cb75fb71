// A profile PyTorch wrote of a user's own code, as a Stepscope run record (io/run_record_json.h),
// so that the app's result views, the History and `compare` take it as they take our own runs:
// - a torch.profiler trace: one entry whose BenchResult holds the trace's device
//   (deviceProperties' name, the kernels' device), its steps as step times (each ProfilerStep#N's
//   span on the CPU: the trace marks no forward/backward/optimizer phases, so none are made up;
//   each step's GPU span and busy time are in the kernel profile's steps), the kernel profile
//   (torch_trace_profile.h) and the operator profile (trace_operators.h);
// - a CUDA memory snapshot: one entry per device holding the active-memory timeline
//   (memory_snapshot_timeline.h, the largest allocations named by their first frame) and its
//   peak (memory_viz's, to the byte) as peak memory.
// Every entry's imported_from is the file: its config holds defaults but for the device and the
// number of steps. The record's inputs name the experiment "import" with the file and its kind;
// its environment says when the profile was taken: where a trace says (its baseTimeNanoseconds
// and first step), else when the file was last written; the caller fills in who imported it.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

#include "imports/memory_snapshot.h"
#include "imports/torch_trace.h"
#include "io/run_record_json.h"

namespace stepscope::imports {

// A file that cannot be imported: the message starts with the file and says what is wrong.
class ImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// The import was cancelled through its progress callback.
class ImportCancelled : public ImportError {
 public:
  using ImportError::ImportError;
};

enum class ProfileKind { run_record, torch_trace, memory_snapshot };
// "run record", "torch.profiler trace", "memory snapshot".
std::string to_string(ProfileKind kind);

// The experiment id and input keys an imported record's RunInputs carry.
inline constexpr const char* kImportExperiment = "import";
inline constexpr const char* kImportFileInput = "file";
inline constexpr const char* kImportKindInput = "kind";

// What a file holds, from its first bytes, not its name: a pickle (protocol 2 and above) is a
// memory snapshot; JSON, plain or gzip, is a Chrome trace when its first member is one a trace
// starts with ("schemaVersion", "traceEvents", "deviceProperties", ...) or it is an array, and a
// run record when its first member is one of a record's ("entries", "environment", "format", ...).
// Throws ImportError for a file that is missing, empty, or none of these.
ProfileKind sniff_profile(const std::string& path);

RunRecord trace_record(const TorchTrace& trace, const std::string& path);
RunRecord snapshot_record(const MemorySnapshot& snapshot, const std::string& path);

struct ImportOptions {
  // Now and then the share done (0..1); returning false cancels (ImportCancelled).
  std::function<bool(double fraction)> progress;
};

// Reads a trace or a snapshot into its record. Throws ImportError (ImportCancelled when cancelled).
RunRecord import_profile(const std::string& path, ProfileKind kind, const ImportOptions& options = {});

}  // namespace stepscope::imports
