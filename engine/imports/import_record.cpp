#include "imports/import_record.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <memory>

#include <sys/stat.h>

#ifdef STEPSCOPE_HAVE_ZLIB
#include <zlib.h>
#endif

#include "imports/memory_snapshot_timeline.h"
#include "imports/plain_pickle.h"
#include "imports/torch_trace_profile.h"
#include "imports/trace_operators.h"
#include "schema/value_format.h"

namespace stepscope::imports {

namespace {

constexpr size_t kSniffBytes = 64 * 1024;

// The first bytes of the file, gzip inflated (zlib reads a plain file as it is).
std::string head_of(const std::string& path) {
  std::string head(kSniffBytes, '\0');
  int n = 0;
#ifdef STEPSCOPE_HAVE_ZLIB
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw ImportError(path + ": cannot be opened");
  n = gzread(file, head.data(), static_cast<unsigned>(head.size()));
  gzclose(file);
#else
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) throw ImportError(path + ": cannot be opened");
  n = static_cast<int>(std::fread(head.data(), 1, head.size(), file));
  std::fclose(file);
#endif
  head.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return head;
}

// The first member's name of the JSON object `text` starts with at `at` ('{'), or "".
std::string first_key(const std::string& text, size_t at) {
  at = text.find_first_not_of(" \t\r\n", at + 1);
  if (at == std::string::npos || text[at] != '"') return "";
  const size_t end = text.find('"', at + 1);
  return end == std::string::npos ? "" : text.substr(at + 1, end - at - 1);
}

bool one_of(const std::string& key, std::initializer_list<const char*> keys) {
  return std::any_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; });
}

std::string file_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string iso_utc(int64_t unix_ns) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ns / 1000000000);
  std::tm tm{};
  if (gmtime_r(&seconds, &tm) == nullptr) return "";
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

// When the file was last written: when PyTorch dumped the profile, for a file as it came.
std::string modified_at(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 ? iso_utc(static_cast<int64_t>(info.st_mtime) * 1000000000) : "";
}

RunRecord import_record(const std::string& path, ProfileKind kind) {
  RunRecord record;
  record.inputs = {kImportExperiment, {{kImportFileInput, path}, {kImportKindInput, to_string(kind)}}};
  record.environment.started_at = modified_at(path);
  return record;
}

// Defaults but for what the profile says: a config every reader of records accepts.
BenchConfig imported_config(Device device, int steps) {
  BenchConfig config;
  config.device = device;
  config.warmup_steps = 0;
  config.measured_steps = std::max(1, steps);
  return config;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

}  // namespace

std::string to_string(ProfileKind kind) {
  switch (kind) {
    case ProfileKind::run_record: return "run record";
    case ProfileKind::torch_trace: return "torch.profiler trace";
    case ProfileKind::memory_snapshot: return "memory snapshot";
  }
  return "?";
}

ProfileKind sniff_profile(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) throw ImportError(path + ": no such file");
  if (S_ISDIR(info.st_mode)) throw ImportError(path + " is a folder, not a run file or a profile");
  std::string head = head_of(path);
  if (head.empty()) throw ImportError(path + ": the file is empty");
  if (static_cast<unsigned char>(head[0]) == 0x80) return ProfileKind::memory_snapshot;
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b) {
    return ProfileKind::torch_trace;  // gzip this build cannot inflate: the trace reader says so
  }
  const size_t start = head.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // a UTF-8 byte order mark
  const size_t at = head.find_first_not_of(" \t\r\n", start);
  if (at != std::string::npos && head[at] == '[') return ProfileKind::torch_trace;  // a bare array of events
  if (at != std::string::npos && head[at] == '{') {
    const std::string key = first_key(head, at);
    if (one_of(key, {"schemaVersion", "traceEvents", "deviceProperties", "displayTimeUnit", "otherData",
                     "systemTraceEvents", "distributedInfo", "trace_id", "traceName", "baseTimeNanoseconds"})) {
      return ProfileKind::torch_trace;
    }
    if (one_of(key, {"entries", "environment", "format", "inputs", "outcome", "results", "tables", "version"})) {
      return ProfileKind::run_record;
    }
    if (head.find("\"traceEvents\"") != std::string::npos) return ProfileKind::torch_trace;
    throw ImportError(path + ": a JSON object, but neither a torch.profiler trace (no \"traceEvents\") nor a "
                             "Stepscope run record (its first member is \"" + key + "\")");
  }
  throw ImportError(path + ": not a Stepscope run record, a torch.profiler trace (JSON, or JSON in gzip) or a "
                           "CUDA memory snapshot (a pickle)");
}

RunRecord trace_record(const TorchTrace& trace, const std::string& path) {
  RunRecord record = import_record(path, ProfileKind::torch_trace);
  ImportedTraceProfile imported = profile_torch_trace(trace);
  const TraceSteps steps = trace_steps(trace);

  BenchResult r;
  r.imported_from = path;
  const bool gpu = !trace.activities.empty();
  const uint32_t device = gpu ? trace.activities.front().device : 0;
  r.config = imported_config(gpu ? Device{DeviceKind::cuda, static_cast<int>(device)} : Device{}, static_cast<int>(steps.steps.size()));
  r.config.profile_kernels = true;
  r.config.profile_operators = true;
  r.device_name = device < trace.devices.size() ? trace.devices[device]
                  : !trace.devices.empty()      ? trace.devices.front()
                  : gpu                         ? "" : "CPU";
  // Step times: each ProfilerStep#N's span on the CPU; the whole trace's when it has none.
  r.timer = steps.whole_trace ? "the whole trace (no ProfilerStep#N)" : "ProfilerStep#N spans on the CPU";
  std::vector<int64_t> totals;
  for (const auto& s : steps.steps) {
    StepTiming t;
    t.total_ns = s.end_ns - s.start_ns;
    r.steps.push_back(t);
    totals.push_back(t.total_ns);
  }
  r.total = summarize_ns(totals);
  std::vector<std::string> notes = {"imported " + to_string(ProfileKind::torch_trace) + " " + file_name(path) +
                                    ": Step is each profiled step's CPU span; the trace marks no forward, backward "
                                    "or optimizer phases"};
  for (auto& note : imported.notes) notes.push_back(std::move(note));
  r.message = join(notes, "; ");
  r.kernel_profile = std::make_shared<const profiling::KernelProfile>(std::move(imported.profile));
  r.operator_profile = std::make_shared<const profiling::OperatorProfile>(trace_operator_profile(trace));
  if (trace.base_time_ns >= 0 && !steps.steps.empty()) {
    record.environment.started_at = iso_utc(trace.base_time_ns + steps.steps.front().start_ns);
  }
  record.entries.push_back({std::move(r), nullptr});
  record.outcome = RunEnding{RunStatus::ok, 1};
  return record;
}

RunRecord snapshot_record(const MemorySnapshot& snapshot, const std::string& path) {
  RunRecord record = import_record(path, ProfileKind::memory_snapshot);
  for (int device : snapshot_devices(snapshot)) {
    const SnapshotTimeline t = build_snapshot_timeline(snapshot, device);
    profiling::TimelineOptions options;
    options.device = device;
    auto timeline = std::make_shared<const profiling::MemoryTimeline>(
        profiling::build_memory_timeline(to_allocation_log(snapshot, t, true), options));
    BenchResult r;
    r.imported_from = path;
    r.config = imported_config(Device{DeviceKind::cuda, device}, 0);
    r.config.profile_memory = true;
    r.peak_memory_bytes = t.peak_bytes;
    using schema::bytes_text;
    r.message = "imported " + to_string(ProfileKind::memory_snapshot) + " " + file_name(path) + ": " +
                std::to_string(t.alloc_entries) + " allocations and " + std::to_string(t.free_completed_entries) +
                " frees recorded; " + bytes_text(static_cast<double>(t.before_recording_bytes)) + " in " +
                std::to_string(t.before_recording_allocations) + " blocks alive before recording began; " +
                bytes_text(static_cast<double>(t.segments.totals.reserved_bytes)) + " reserved in " +
                std::to_string(t.segments.segment_count) + " segments when the snapshot was taken";
    r.memory_timeline = timeline;
    record.entries.push_back({std::move(r), timeline});
  }
  record.outcome = RunEnding{RunStatus::ok, record.entries.size()};
  return record;
}

RunRecord import_profile(const std::string& path, ProfileKind kind, const ImportOptions& options) {
  bool cancelled = false;
  const auto going = [&](double fraction) {
    cancelled = cancelled || (options.progress && !options.progress(fraction));
    return !cancelled;
  };
  try {
    if (kind == ProfileKind::torch_trace) {
      TraceReadOptions read;
      // Reading is most of the work; the profiles are built in a fraction of it.
      read.progress = [&](double fraction) { return going(0.9 * fraction); };
      TorchTrace trace = read_torch_trace(path, read);
      if (!going(0.9)) throw ImportCancelled(path + ": cancelled");
      require_trace_events(trace, path);
      RunRecord record = trace_record(trace, path);
      going(1.0);
      return record;
    }
    if (kind == ProfileKind::memory_snapshot) {
      if (!going(0.0)) throw ImportCancelled(path + ": cancelled");
      // Decoding the pickle is most of the work; the timelines are built in the rest.
      const MemorySnapshot snapshot =
          read_memory_snapshot(path, [&](double fraction) { return going(0.6 * fraction); });
      if (!going(0.6)) throw ImportCancelled(path + ": cancelled");
      RunRecord record = snapshot_record(snapshot, path);
      if (record.entries.empty()) throw ImportError(path + ": the snapshot holds no memory and no trace");
      going(1.0);
      return record;
    }
  } catch (const TraceImportError& e) {
    if (cancelled) throw ImportCancelled(e.what());
    throw ImportError(e.what());
  } catch (const MemorySnapshotError& e) {
    throw ImportError(e.what());
  } catch (const PlainPickleCancelled&) {
    throw ImportCancelled(path + ": cancelled");
  }
  throw ImportError(path + ": a " + to_string(kind) + " is not a profile to import");
}

}  // namespace stepscope::imports
