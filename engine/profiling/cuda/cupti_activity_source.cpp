// CUPTI activity collection: concurrent kernels, copies, sets, the runtime/driver calls
// that launched them and the external correlation ids (operator calls) those calls ran under. CUPTI hands full buffers to a callback on its own thread; the records
// are parsed there into plain structs and picked up by take() on the profiler's thread, so
// the training thread only pays for CUPTI's own bookkeeping.
#include <cupti.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

#include "profiling/activity_source.h"

namespace stepscope::profiling {

namespace {

// Small enough that a buffer fills, and so reaches the live summaries, every few hundred
// milliseconds of a large model's step (about 2,000 kernels with their launch records).
constexpr size_t kBufferBytes = 512u << 10;
constexpr size_t kBufferAlignment = 8;

std::string cupti_error(CUptiResult result) {
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  return text ? text : "CUPTI error " + std::to_string(static_cast<int>(result));
}

// Returns an empty string on success, else what failed and why.
std::string check(CUptiResult result, const char* what) {
  return result == CUPTI_SUCCESS ? std::string() : std::string(what) + ": " + cupti_error(result);
}

MemoryOperation copy_operation(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return MemoryOperation::copy_host_to_device;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return MemoryOperation::copy_device_to_host;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return MemoryOperation::copy_device_to_device;
    default: return MemoryOperation::copy_other;
  }
}

class CuptiActivitySource;
CuptiActivitySource* g_source = nullptr;  // CUPTI's buffer callbacks take no user pointer

class CuptiActivitySource final : public ActivitySource {
 public:
  ~CuptiActivitySource() override {
    if (started_) stop();
  }

  std::string name() const override { return "CUPTI"; }

  bool start(std::string& why_not) override {
    if (g_source != nullptr) {
      why_not = "another CUPTI collection is already running in this process";
      return false;
    }
    g_source = this;
    why_not = check(cuptiActivityRegisterCallbacks(&CuptiActivitySource::buffer_requested,
                                                   &CuptiActivitySource::buffer_completed),
                    "cuptiActivityRegisterCallbacks");
    for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                    CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
                                    CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION}) {
      if (!why_not.empty()) break;
      why_not = check(cuptiActivityEnable(kind), "cuptiActivityEnable");
      if (why_not.empty()) enabled_.push_back(kind);
    }
    if (!why_not.empty()) {
      disable_all();
      g_source = nullptr;
      return false;
    }
    started_ = true;
    return true;
  }

  void stop() override {
    if (!started_) return;
    // The caller has waited for the device: nothing is in flight, so forcing out the
    // partly filled buffers loses nothing.
    flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    disable_all();
    started_ = false;
    g_source = nullptr;
  }

  void flush_completed() override { flush(0); }

  ActivityBatch take() override {
    std::lock_guard<std::mutex> lock(mutex_);
    ActivityBatch batch = std::move(completed_);
    completed_ = ActivityBatch();
    batch.error = std::move(first_error_);
    first_error_.clear();
    return batch;
  }

  int64_t now_ns() const override {
    uint64_t timestamp = 0;
    if (cuptiGetTimestamp(&timestamp) != CUPTI_SUCCESS) return 0;
    return static_cast<int64_t>(timestamp);
  }

  // CUPTI keeps a stack per thread and kind; CUSTOM0 is ours (kineto uses it the same way).
  // Hot (every operator call) and unable to fail for a valid kind: results are not checked.
  void push_correlation(uint64_t id) override {
    cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
  }
  void pop_correlation() override {
    cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr);
  }

 private:
  void flush(uint32_t flags) {
    const std::string error = check(cuptiActivityFlushAll(flags), "cuptiActivityFlushAll");
    if (!error.empty()) record_error(error);
  }

  void disable_all() {
    for (CUpti_ActivityKind kind : enabled_) cuptiActivityDisable(kind);
    enabled_.clear();
  }

  void record_error(const std::string& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (first_error_.empty()) first_error_ = error;
  }

  static void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;  // as many as fit
  }

  static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t /*size*/,
                                        size_t valid_bytes) {
    if (g_source != nullptr) g_source->parse(context, stream_id, buffer, valid_bytes);
    std::free(buffer);
  }

  void parse(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t valid_bytes) {
    ActivityBatch parsed;
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
      add(parsed, record);
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS) {
      parsed.dropped_records = dropped;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    auto append = [](auto& into, auto& from) { into.insert(into.end(), from.begin(), from.end()); };
    append(completed_.kernels, parsed.kernels);
    append(completed_.memory, parsed.memory);
    append(completed_.api, parsed.api);
    append(completed_.correlations, parsed.correlations);
    completed_.dropped_records += parsed.dropped_records;
  }

  static void add(ActivityBatch& batch, const CUpti_Activity* record) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        KernelRecord out;
        out.name = k->name ? k->name : "<unnamed kernel>";
        out.start_ns = static_cast<int64_t>(k->start);
        out.end_ns = static_cast<int64_t>(k->end);
        out.device_id = k->deviceId;
        out.stream_id = k->streamId;
        out.correlation_id = k->correlationId;
        out.grid[0] = k->gridX, out.grid[1] = k->gridY, out.grid[2] = k->gridZ;
        out.block[0] = k->blockX, out.block[1] = k->blockY, out.block[2] = k->blockZ;
        batch.kernels.push_back(std::move(out));
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        batch.memory.push_back({copy_operation(m->copyKind), m->bytes, static_cast<int64_t>(m->start),
                                static_cast<int64_t>(m->end), m->deviceId, m->streamId, m->correlationId});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        batch.memory.push_back({MemoryOperation::set, m->bytes, static_cast<int64_t>(m->start),
                                static_cast<int64_t>(m->end), m->deviceId, m->streamId, m->correlationId});
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME:
      case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        const bool driver = record->kind == CUPTI_ACTIVITY_KIND_DRIVER;
        const char* name = nullptr;
        cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &name);
        batch.api.push_back({name ? name : "<cuda api>", static_cast<int64_t>(a->start),
                             static_cast<int64_t>(a->end), a->threadId, a->correlationId, driver});
        break;
      }
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        // Precedes the API record it tags in the buffers, so a reader that has an API call
        // has its tag too.
        const auto* c = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
        if (c->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
          batch.correlations.push_back({c->correlationId, c->externalId});
        }
        break;
      }
      default:
        break;
    }
  }

  bool started_ = false;
  std::vector<CUpti_ActivityKind> enabled_;
  std::mutex mutex_;
  ActivityBatch completed_;
  std::string first_error_;
};

}  // namespace

std::unique_ptr<ActivitySource> make_cupti_activity_source() { return std::make_unique<CuptiActivitySource>(); }

}  // namespace stepscope::profiling
