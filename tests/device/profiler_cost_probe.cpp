// A device probe of what profiling costs per operator call and per kernel launch, each piece
// alone: the clocks, LibTorch's RecordFunction callbacks (with and without inputs), CUPTI's
// activity kinds, external correlation, CUPTI's callback API, and the operator recorder as
// `--profile ops` runs it. A launch-bound loop of small CUDA operators, timed per call on the
// host; built on request (tests/device/profiler_costs_on_gpu.sh), not by default.
#include <cupti.h>
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include <ATen/record_function.h>
#include <torch/torch.h>

#include "compat/operator_callbacks.h"
#include "profiling/activity_source.h"
#include "profiling/launch_calls.h"
#include "profiling/operator_recorder.h"

namespace {

using namespace stepscope;

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

template <typename F>
double ns_per_call(F&& f, int n) {
  const int64_t start = steady_ns();
  for (int i = 0; i < n; ++i) f();
  return double(steady_ns() - start) / n;
}

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::fprintf(stderr, "%s: %s\n", what, text ? text : "?");
  std::exit(2);
}

// The loop: `ops` small operators, one in four a view (no kernel), then a device sync.
// Returns the median over rounds of host ns per operator call.
double loop_ns(torch::Tensor& t, int rounds = 7, int ops = 20000) {
  std::vector<double> per;
  for (int r = 0; r < rounds; ++r) {
    torch::cuda::synchronize();
    const int64_t start = steady_ns();
    for (int i = 0; i < ops; ++i) {
      if (i % 4 == 3) {
        auto v = t.view({16, 16});
        (void)v;
      } else {
        t.add_(1.0);
      }
    }
    torch::cuda::synchronize();
    per.push_back(double(steady_ns() - start) / ops);
  }
  std::sort(per.begin(), per.end());
  return per[per.size() / 2];
}

size_t g_records = 0;
void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, 1 << 20));
  *size = 1 << 20;
  *max_records = 0;
}
void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) ++g_records;
  std::free(buffer);
}

thread_local std::vector<uint32_t> t_launches;
void CUPTIAPI on_launch(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (info->callbackSite == CUPTI_API_ENTER) t_launches.push_back(info->correlationId);
}

struct Counting final : compat::OperatorListener {
  uint64_t calls = 0;
  void operator_begin(const char*, const compat::InputShapes*) override { ++calls; }
  void operator_end(const char*) override {}
};

struct Report {
  double base = 0;
  void row(const char* what, double ns) {
    if (base == 0) base = ns;
    std::printf("%-62s %8.0f ns/call  +%6.0f ns  (%.3fx)\n", what, ns, ns - base, ns / base);
    std::fflush(stdout);
  }
};

}  // namespace

int main() {
  if (!torch::cuda::is_available()) {
    std::puts("no GPU");
    return 1;
  }
  std::puts("== clocks (ns per read)");
  const int n = 2000000;
  timespec ts{};
  uint64_t cupti_ts = 0;
  std::printf("steady_clock::now                %6.1f\n", ns_per_call([] { (void)steady_ns(); }, n));
  std::printf("clock_gettime(MONOTONIC)         %6.1f\n", ns_per_call([&] { clock_gettime(CLOCK_MONOTONIC, &ts); }, n));
  std::printf("clock_gettime(MONOTONIC_RAW)     %6.1f\n",
              ns_per_call([&] { clock_gettime(CLOCK_MONOTONIC_RAW, &ts); }, n));
  std::printf("rdtsc                            %6.1f\n", ns_per_call([] { (void)__rdtsc(); }, n));
  std::printf("cuptiGetTimestamp                %6.1f\n", ns_per_call([&] { cuptiGetTimestamp(&cupti_ts); }, n));
  std::function<int64_t()> fn = steady_ns;
  std::printf("std::function(steady)            %6.1f\n", ns_per_call([&] { (void)fn(); }, n));

  auto t = torch::zeros({256}, torch::TensorOptions().device(torch::kCUDA));
  for (int i = 0; i < 1000; ++i) t.add_(1.0);
  torch::cuda::synchronize();

  std::puts("== a loop of small operators (3 of 4 launch a kernel), host time per call, median of 7");
  Report report;
  report.row("plain", loop_ns(t));
  {
    Counting counting;
    compat::OperatorCallbacks callbacks(counting, false);
    report.row("RecordFunction callbacks, no inputs (counting only)", loop_ns(t));
  }
  {
    Counting counting;
    compat::OperatorCallbacks callbacks(counting, true);
    report.row("RecordFunction callbacks with input shapes", loop_ns(t));
  }
  for (const bool shapes : {true, false}) {
    profiling::OperatorRecorderOptions options;
    options.input_shapes = shapes;
    profiling::OperatorRecorder recorder(steady_ns, options, nullptr);
    compat::OperatorCallbacks callbacks(recorder, shapes);
    report.row(shapes ? "operator recorder, shapes, steady clock, no CUPTI"
                      : "operator recorder, no shapes, steady clock, no CUPTI",
               loop_ns(t));
    recorder.drain();
  }

  check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "register");
  const auto with_kinds = [&](const char* what, std::vector<CUpti_ActivityKind> kinds, bool push_pop) {
    for (auto k : kinds) check(cuptiActivityEnable(k), "enable");
    double ns = 0;
    if (push_pop) {
      struct PushPop final : compat::OperatorListener {
        uint64_t id = 0;
        void operator_begin(const char*, const compat::InputShapes*) override {
          cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, ++id);
        }
        void operator_end(const char*) override {
          cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr);
        }
      } listener;
      compat::OperatorCallbacks callbacks(listener, false);
      ns = loop_ns(t);
    } else {
      ns = loop_ns(t);
    }
    report.row(what, ns);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (auto k : kinds) cuptiActivityDisable(k);
  };
  using K = CUpti_ActivityKind;
  const K kernel = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, runtime = CUPTI_ACTIVITY_KIND_RUNTIME,
          driver = CUPTI_ACTIVITY_KIND_DRIVER, external = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
          memcpy = CUPTI_ACTIVITY_KIND_MEMCPY, memset = CUPTI_ACTIVITY_KIND_MEMSET;
  with_kinds("CUPTI kernels", {kernel}, false);
  with_kinds("CUPTI kernels, memcpy, memset", {kernel, memcpy, memset}, false);
  with_kinds("CUPTI runtime call records", {runtime}, false);
  with_kinds("CUPTI driver call records", {driver}, false);
  with_kinds("CUPTI kernels + runtime + driver calls (--profile kernels)", {kernel, memcpy, memset, runtime, driver,
                                                                          external}, false);
  with_kinds("external correlation push/pop per call, no kinds", {external}, true);
  with_kinds("external correlation push/pop + --profile kernels' kinds",
             {kernel, memcpy, memset, runtime, driver, external}, true);
  {
    CUpti_SubscriberHandle subscriber{};
    check(cuptiSubscribe(&subscriber, on_launch, nullptr), "subscribe");
    for (uint32_t cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; ++cbid) {
      const char* name = nullptr;
      if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) == CUPTI_SUCCESS && name &&
          profiling::starts_gpu_work(name))
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid);  // launches, copies, sets
    }
    report.row("CUPTI callback API on launch/copy/set calls only", loop_ns(t));
    check(cuptiActivityEnable(kernel), "enable");
    report.row("callback API on launches + CUPTI kernels", loop_ns(t));
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    cuptiActivityDisable(kernel);
    cuptiUnsubscribe(subscriber);
    std::printf("(launch callbacks seen: %zu)\n", t_launches.size());
  }
  // The product's source as --profile ops starts it, with the operator recorder on its clock.
  for (const bool steady : {false, true}) {
    auto source = profiling::make_cupti_activity_source();
    std::string why;
    if (!source->start(why)) {
      std::printf("source: %s\n", why.c_str());
      break;
    }
    std::function<int64_t()> clock = steady ? std::function<int64_t()>(steady_ns)
                                            : std::function<int64_t()>([&] { return source->now_ns(); });
    profiling::OperatorRecorder recorder(clock, {}, source.get());
    compat::OperatorCallbacks callbacks(recorder, true);
    report.row(steady ? "--profile kernels,ops as built, steady clock" : "--profile kernels,ops as built", loop_ns(t));
    recorder.drain();
    source->stop();
    (void)source->take();
  }
  // CUPTI's timestamps from our clock instead of its own.
  check(cuptiActivityRegisterTimestampCallback([]() -> uint64_t { return static_cast<uint64_t>(steady_ns()); }),
        "timestamp callback");
  check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "register");
  with_kinds("timestamp callback: CUPTI kernels", {kernel}, false);
  with_kinds("timestamp callback: --profile kernels' kinds", {kernel, memcpy, memset, runtime, driver, external},
             false);
  std::printf("(activity records seen: %zu)\n", g_records);
  return 0;
}
