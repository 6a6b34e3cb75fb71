// The Chrome trace, parsed back with nlohmann::json: tracks, events, units and flow arrows.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/chrome_trace_export.h"

namespace stepscope {
namespace {

using nlohmann::json;
using profiling::ActivityBatch;
using profiling::RangeRecord;

constexpr int64_t kT0 = 1700000000000000000;  // epoch-scale ns: µs doubles of these lose digits

json trace_of(const std::vector<RangeRecord>& ranges, const ActivityBatch& activity,
              const std::string& process = "stepscope") {
  std::ostringstream out;
  write_chrome_trace(out, ranges, activity, process);
  return json::parse(out.str());  // throws on invalid JSON
}

std::vector<json> events(const json& trace, const std::string& ph) {
  std::vector<json> found;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") == ph) found.push_back(e);
  }
  return found;
}

json find(const json& trace, const std::string& ph, const std::string& name) {
  for (const auto& e : events(trace, ph)) {
    if (e.at("name") == name) return e;
  }
  ADD_FAILURE() << "no " << ph << " event named " << name;
  return json::object();
}

// pid of the process named `name`; tid of the track named `name` within a pid.
int64_t pid_named(const json& trace, const std::string& name) {
  for (const auto& e : events(trace, "M")) {
    if (e.at("name") == "process_name" && e.at("args").at("name") == name) return e.at("pid");
  }
  ADD_FAILURE() << "no process " << name;
  return -1;
}

bool has_track(const json& trace, int64_t pid, int64_t tid, const std::string& name) {
  for (const auto& e : events(trace, "M")) {
    if (e.at("name") == "thread_name" && e.at("pid") == pid && e.at("tid") == tid && e.at("args").at("name") == name) {
      return true;
    }
  }
  return false;
}

profiling::KernelRecord kernel(const std::string& name, int64_t start, int64_t end, uint32_t device, uint32_t stream,
                               uint32_t correlation) {
  profiling::KernelRecord k;
  k.name = name;
  k.start_ns = kT0 + start;
  k.end_ns = kT0 + end;
  k.device_id = device;
  k.stream_id = stream;
  k.correlation_id = correlation;
  k.grid[0] = 128, k.grid[1] = 2, k.grid[2] = 1;
  k.block[0] = 256, k.block[1] = 1, k.block[2] = 1;
  return k;
}

profiling::ApiRecord api(const std::string& name, int64_t start, int64_t end, uint32_t thread, uint32_t correlation,
                         bool driver = false) {
  return {name, kT0 + start, kT0 + end, thread, correlation, driver};
}

RangeRecord range(uint64_t id, uint64_t parent, const std::string& name, int64_t start, int64_t end, int step,
                  bool warmup) {
  return {id, parent, name, 42, kT0 + start, end == 0 ? 0 : kT0 + end, step, warmup};
}

const char* const kAdd =
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EEEEviT0_T1_";
const char* const kAddDemangled =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> "
    ">(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)";

struct Sample {
  std::vector<RangeRecord> ranges;
  ActivityBatch activity;
};

Sample sample() {
  Sample s;
  s.ranges = {range(1, 0, "step", 0, 10000, 0, true), range(2, 1, "forward", 1500, 3750, 0, true),
              range(3, 0, "step", 10000, 20000, 1, false), range(4, 3, "still open", 11000, 0, 1, false)};
  s.activity.api = {api("cudaLaunchKernel", 2000, 2500, 42, 7), api("cuLaunchKernelEx", 12000, 12250, 42, 9, true),
                    api("cudaMemcpyAsync", 13000, 13100, 43, 11)};
  s.activity.kernels = {kernel("ampere_sgemm_128x64_tn", 14000, 15000, 1, 13, 9),  // after the next one on stream 7
                        kernel(kAdd, 4000, 4500, 0, 7, 7), kernel("ampere_sgemm_128x64_tn", 15000, 16000, 1, 13, 9),
                        kernel("orphan_kernel", 5000, 5100, 0, 7, 1234)};
  profiling::MemoryRecord copy;
  copy.operation = profiling::MemoryOperation::copy_device_to_host;
  copy.bytes = 4096;
  copy.start_ns = kT0 + 13500;
  copy.end_ns = kT0 + 13600;
  copy.stream_id = 3;
  copy.correlation_id = 11;
  s.activity.memory = {copy};
  return s;
}

TEST(ChromeTraceExport, TopLevelFormAndMicrosecondsFromTheOrigin) {
  const auto s = sample();
  const json trace = trace_of(s.ranges, s.activity);
  EXPECT_EQ(trace.at("displayTimeUnit"), "ns");
  EXPECT_EQ(trace.at("otherData").at("origin_ns").get<int64_t>(), kT0);
  const json forward = find(trace, "X", "forward");
  EXPECT_DOUBLE_EQ(forward.at("ts").get<double>(), 1.5);  // 1500 ns after the origin
  EXPECT_DOUBLE_EQ(forward.at("dur").get<double>(), 2.25);
  const json launch = find(trace, "X", "cudaLaunchKernel");
  EXPECT_DOUBLE_EQ(launch.at("ts").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(launch.at("dur").get<double>(), 0.5);
}

TEST(ChromeTraceExport, CpuRangesAndApiCallsOnTheirThreads) {
  const auto s = sample();
  const json trace = trace_of(s.ranges, s.activity, "stepscope bench");
  const int64_t cpu = pid_named(trace, "stepscope bench");
  EXPECT_TRUE(has_track(trace, cpu, 42, "thread 42"));
  EXPECT_TRUE(has_track(trace, cpu, 43, "thread 43"));
  int steps = 0;
  for (const auto& e : events(trace, "X")) {
    if (e.at("name") != "step") continue;
    ++steps;
    EXPECT_EQ(e.at("pid"), cpu);
    EXPECT_EQ(e.at("tid"), 42);
    EXPECT_EQ(e.at("args").at("warmup").get<bool>(), e.at("args").at("step") == 0);
  }
  EXPECT_EQ(steps, 2);
  EXPECT_EQ(find(trace, "X", "forward").at("args").at("parent id"), 1);
  for (const auto& e : events(trace, "X")) EXPECT_NE(e.at("name"), "still open");
  EXPECT_EQ(find(trace, "X", "cudaLaunchKernel").at("cat"), "cuda_runtime");
  EXPECT_EQ(find(trace, "X", "cuLaunchKernelEx").at("cat"), "cuda_driver");
  EXPECT_EQ(find(trace, "X", "cudaMemcpyAsync").at("tid"), 43);
}

TEST(ChromeTraceExport, KernelsAndCopiesOnPerDevicePerStreamTracks) {
  const auto s = sample();
  const json trace = trace_of(s.ranges, s.activity);
  const int64_t gpu0 = pid_named(trace, "GPU 0"), gpu1 = pid_named(trace, "GPU 1");
  EXPECT_NE(gpu0, gpu1);
  EXPECT_NE(gpu0, pid_named(trace, "stepscope"));
  EXPECT_TRUE(has_track(trace, gpu0, 7, "stream 7"));
  EXPECT_TRUE(has_track(trace, gpu0, 3, "stream 3"));
  EXPECT_TRUE(has_track(trace, gpu1, 13, "stream 13"));
  const json add = find(trace, "X", "vectorized_elementwise_kernel");
  EXPECT_EQ(add.at("pid"), gpu0);
  EXPECT_EQ(add.at("tid"), 7);
  EXPECT_EQ(add.at("cat"), "kernel");
  EXPECT_EQ(add.at("args").at("name"), kAddDemangled);
  EXPECT_EQ(add.at("args").at("grid"), json::parse("[128, 2, 1]"));
  EXPECT_EQ(add.at("args").at("block"), json::parse("[256, 1, 1]"));
  EXPECT_EQ(add.at("args").at("correlation id"), 7);
  const json copy = find(trace, "X", "[CUDA memcpy Device-to-Host]");
  EXPECT_EQ(copy.at("pid"), gpu0);
  EXPECT_EQ(copy.at("tid"), 3);
  EXPECT_EQ(copy.at("cat"), "memcpy");
  EXPECT_EQ(copy.at("args").at("bytes"), 4096);
  EXPECT_DOUBLE_EQ(copy.at("dur").get<double>(), 0.1);
}

TEST(ChromeTraceExport, EventsAreSortedByTimePerTrack) {
  const auto s = sample();
  const json trace = trace_of(s.ranges, s.activity);
  std::map<std::pair<int64_t, int64_t>, double> last;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") == "M") continue;
    const auto track = std::make_pair(e.at("pid").get<int64_t>(), e.at("tid").get<int64_t>());
    const double ts = e.at("ts");
    if (last.count(track)) {
      EXPECT_LE(last[track], ts) << e.dump();
    }
    last[track] = ts;
  }
  const int64_t gpu1 = pid_named(trace, "GPU 1");
  std::vector<double> starts;
  for (const auto& e : events(trace, "X")) {
    if (e.at("pid") == gpu1) starts.push_back(e.at("ts"));
  }
  EXPECT_EQ(starts, (std::vector<double>{14.0, 15.0}));
}

TEST(ChromeTraceExport, FlowsLinkLaunchesToTheirKernels) {
  const auto s = sample();
  const json trace = trace_of(s.ranges, s.activity);
  const auto starts = events(trace, "s"), ends = events(trace, "f");
  // cudaLaunchKernel -> add, cuLaunchKernelEx -> two sgemms, cudaMemcpyAsync -> the copy;
  // the orphan kernel's launch was never seen.
  ASSERT_EQ(starts.size(), 4u);
  ASSERT_EQ(ends.size(), 4u);
  std::map<int64_t, json> start_by_id, end_by_id;
  for (const auto& e : starts) start_by_id[e.at("id")] = e;
  for (const auto& e : ends) end_by_id[e.at("id")] = e;
  EXPECT_EQ(start_by_id.size(), 4u);  // one id per arrow, even for a shared correlation id
  const int64_t cpu = pid_named(trace, "stepscope"), gpu0 = pid_named(trace, "GPU 0");
  std::multiset<std::pair<double, double>> arrows;  // (api ts, kernel ts)
  for (const auto& [id, start] : start_by_id) {
    ASSERT_TRUE(end_by_id.count(id));
    const json& end = end_by_id[id];
    EXPECT_EQ(start.at("cat"), end.at("cat"));
    EXPECT_EQ(end.at("bp"), "e");
    EXPECT_EQ(start.at("pid"), cpu);
    EXPECT_NE(end.at("pid"), cpu);
    arrows.insert({start.at("ts").get<double>(), end.at("ts").get<double>()});
  }
  EXPECT_EQ(arrows, (std::multiset<std::pair<double, double>>{{2.0, 4.0}, {12.0, 14.0}, {12.0, 15.0}, {13.0, 13.5}}));
  for (const auto& e : ends) {
    if (e.at("ts") == 4.0) {
      EXPECT_EQ(e.at("pid"), gpu0);
      EXPECT_EQ(e.at("tid"), 7);
    }
  }
  for (const auto& e : starts) {
    if (e.at("ts") == 13.0) {
      EXPECT_EQ(e.at("tid"), 43);
    }
  }
}

TEST(ChromeTraceExport, OddNamesSurvive) {
  const std::string tricky = "say \"hi\" \\ back\\slash\ttab\nline é 注意 🚀";
  ActivityBatch activity;
  activity.api = {api(tricky, 0, 10, 1, 0)};
  activity.kernels = {kernel(tricky, 5, 8, 0, 1, 0), kernel(std::string("bad \xff byte"), 6, 7, 0, 2, 0)};
  const json trace = trace_of({range(1, 0, tricky, 0, 20, 0, false)}, activity, tricky);
  EXPECT_GE(pid_named(trace, tricky), 0);  // the process name too
  int matches = 0;
  for (const auto& e : events(trace, "X")) matches += e.at("name") == tricky;
  EXPECT_EQ(matches, 3);  // range, API call, kernel
  EXPECT_EQ(find(trace, "X", tricky).at("name").get<std::string>(), tricky);
  bool replaced = false;
  for (const auto& e : events(trace, "X")) replaced |= e.at("name") == "bad \xef\xbf\xbd byte";  // U+FFFD
  EXPECT_TRUE(replaced);
}

TEST(ChromeTraceExport, EmptyInputIsStillATrace) {
  const json trace = trace_of({}, ActivityBatch{});
  EXPECT_EQ(trace.at("displayTimeUnit"), "ns");
  EXPECT_TRUE(events(trace, "X").empty());
  EXPECT_GE(pid_named(trace, "stepscope"), 0);
}

}  // namespace
}  // namespace stepscope
