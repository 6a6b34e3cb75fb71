#include "io/chrome_trace_export.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "profiling/kernel_names.h"

namespace stepscope {

namespace {

using Json = nlohmann::ordered_json;
using namespace profiling;

constexpr int64_t kCpuPid = 1;
constexpr int64_t kGpuPidBase = 1000;  // device d is process 1000 + d

enum class Kind { range, op, api, kernel, memory, flow_start, flow_end };

// A placed event; its JSON is made only when written, to keep large traces small in memory.
struct Event {
  int64_t pid = 0;
  int64_t tid = 0;
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  Kind kind = Kind::range;
  size_t index = 0;      // into the source vector of its kind
  uint64_t flow_id = 0;  // flow events only
};

int rank(Kind kind) { return kind == Kind::flow_start || kind == Kind::flow_end ? 1 : 0; }


std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

Json metadata(const char* what, int64_t pid, int64_t tid, const std::string& name) {
  return Json{{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

class TraceWriter {
 public:
  TraceWriter(const std::vector<RangeRecord>& ranges, const ActivityBatch& activity,
              const std::vector<OperatorCallRecord>& calls, const std::vector<std::string>& strings)
      : ranges_(ranges), activity_(activity), calls_(calls), strings_(strings) {}

  void write(std::ostream& out, const std::string& process_name) {
    place_events();
    out << "{\"displayTimeUnit\":\"ns\",\"otherData\":"
        << dump(Json{{"origin_ns", origin_}, {"dropped_records", activity_.dropped_records}})
        << ",\"traceEvents\":[\n";
    out << dump(metadata("process_name", kCpuPid, 0, process_name));
    out << ",\n" << dump(Json{{"name", "process_sort_index"}, {"ph", "M"}, {"pid", kCpuPid}, {"tid", 0},
                             {"args", {{"sort_index", kCpuPid}}}});
    std::set<int64_t> gpus;
    for (const auto& [pid, tid] : tracks_) {
      if (pid != kCpuPid && gpus.insert(pid).second) {
        out << ",\n" << dump(metadata("process_name", pid, 0, "GPU " + std::to_string(pid - kGpuPidBase)));
        out << ",\n" << dump(Json{{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", 0},
                                 {"args", {{"sort_index", pid}}}});
      }
      const std::string track = (pid == kCpuPid ? "thread " : "stream ") + std::to_string(tid);
      out << ",\n" << dump(metadata("thread_name", pid, tid, track));
    }
    for (const Event& e : events_) out << ",\n" << dump(render(e));
    out << "\n]}\n";
  }

 private:
  double us(int64_t ns) const { return static_cast<double>(ns - origin_) / 1000.0; }

  void add(int64_t pid, int64_t tid, int64_t start, int64_t end, Kind kind, size_t index, uint64_t flow = 0) {
    events_.push_back({pid, tid, start, std::max<int64_t>(0, end - start), kind, index, flow});
    tracks_.insert({pid, tid});
  }

  void place_events() {
    for (size_t i = 0; i < ranges_.size(); ++i) {
      const auto& r = ranges_[i];
      if (r.end_ns != 0 && r.end_ns >= r.start_ns) add(kCpuPid, r.thread_id, r.start_ns, r.end_ns, Kind::range, i);
    }
    for (size_t i = 0; i < calls_.size(); ++i) {
      const auto& c = calls_[i];
      if (c.end_ns >= c.start_ns) add(kCpuPid, c.thread_id, c.start_ns, c.end_ns, Kind::op, i);
      call_by_id_.emplace(c.id, i);
    }
    for (const auto& c : activity_.correlations) call_of_correlation_.emplace(c.correlation_id, c.external_id);
    std::map<uint32_t, size_t> api_by_correlation;
    for (size_t i = 0; i < activity_.api.size(); ++i) {
      const auto& a = activity_.api[i];
      add(kCpuPid, a.thread_id, a.start_ns, a.end_ns, Kind::api, i);
      if (a.correlation_id != 0) api_by_correlation.emplace(a.correlation_id, i);
    }
    uint64_t next_flow = 1;
    const auto link = [&](uint32_t correlation, int64_t pid, int64_t tid, int64_t start) {
      const auto api = api_by_correlation.find(correlation);
      if (correlation == 0 || api == api_by_correlation.end()) return;
      const auto& a = activity_.api[api->second];
      add(kCpuPid, a.thread_id, a.start_ns, a.start_ns, Kind::flow_start, api->second, next_flow);
      add(pid, tid, start, start, Kind::flow_end, 0, next_flow++);
    };
    for (size_t i = 0; i < activity_.kernels.size(); ++i) {
      const auto& k = activity_.kernels[i];
      add(kGpuPidBase + k.device_id, k.stream_id, k.start_ns, k.end_ns, Kind::kernel, i);
      link(k.correlation_id, kGpuPidBase + k.device_id, k.stream_id, k.start_ns);
    }
    for (size_t i = 0; i < activity_.memory.size(); ++i) {
      const auto& m = activity_.memory[i];
      add(kGpuPidBase + m.device_id, m.stream_id, m.start_ns, m.end_ns, Kind::memory, i);
      link(m.correlation_id, kGpuPidBase + m.device_id, m.stream_id, m.start_ns);
    }
    origin_ = 0;
    if (!events_.empty()) {
      origin_ = std::numeric_limits<int64_t>::max();
      for (const Event& e : events_) origin_ = std::min(origin_, e.start_ns);
    }
    // Per track by start; an enclosing slice before what it encloses; a flow after its slice.
    std::stable_sort(events_.begin(), events_.end(), [](const Event& a, const Event& b) {
      return std::make_tuple(a.pid, a.tid, a.start_ns, -a.dur_ns, rank(a.kind)) <
             std::make_tuple(b.pid, b.tid, b.start_ns, -b.dur_ns, rank(b.kind));
    });
  }

  Json slice(const std::string& name, const char* category, const Event& e) const {
    return Json{{"name", name}, {"cat", category}, {"ph", "X"},        {"pid", e.pid},
                {"tid", e.tid}, {"ts", us(e.start_ns)}, {"dur", e.dur_ns / 1000.0}};
  }

  // Demangled and short names, once per distinct kernel: a step launches the same few hundred.
  const std::pair<std::string, std::string>& names(const std::string& mangled) const {
    auto found = names_.find(mangled);
    if (found == names_.end()) {
      std::string demangled = demangle_kernel_name(mangled);
      std::string short_name = short_kernel_name(demangled);
      found = names_.emplace(mangled, std::make_pair(std::move(demangled), std::move(short_name))).first;
    }
    return found->second;
  }

  const std::string& text(uint32_t id) const {
    static const std::string none;
    return id < strings_.size() ? strings_[id] : none;
  }

  // Names the operator call a kernel or copy was launched in, where the window holds it.
  void add_operator(Json& args, uint32_t correlation) const {
    const auto tagged = call_of_correlation_.find(correlation);
    if (correlation == 0 || tagged == call_of_correlation_.end()) return;
    const auto call = call_by_id_.find(tagged->second);
    if (call == call_by_id_.end()) return;
    args["operator"] = text(calls_[call->second].name);
    args["operator call id"] = tagged->second;
  }

  Json render(const Event& e) const {
    switch (e.kind) {
      case Kind::op: {
        const auto& c = calls_[e.index];
        Json j = slice(text(c.name), "cpu_op", e);
        j["args"] = {{"call id", c.id}, {"parent call id", c.parent_id}};
        if (c.input_shapes != 0) j["args"]["input shapes"] = text(c.input_shapes);
        return j;
      }
      case Kind::range: {
        const auto& r = ranges_[e.index];
        Json j = slice(r.name, "range", e);
        j["args"] = {{"step", r.step}, {"warmup", r.warmup}, {"range id", r.id}, {"parent id", r.parent_id}};
        return j;
      }
      case Kind::api: {
        const auto& a = activity_.api[e.index];
        Json j = slice(a.name, a.driver ? "cuda_driver" : "cuda_runtime", e);
        j["args"] = {{"correlation id", a.correlation_id}};
        return j;
      }
      case Kind::kernel: {
        const auto& k = activity_.kernels[e.index];
        const auto& [demangled, short_name] = names(k.name);
        Json j = slice(short_name, "kernel", e);
        j["args"] = {{"name", demangled},
                     {"grid", {k.grid[0], k.grid[1], k.grid[2]}},
                     {"block", {k.block[0], k.block[1], k.block[2]}},
                     {"correlation id", k.correlation_id}};
        add_operator(j["args"], k.correlation_id);
        return j;
      }
      case Kind::memory: {
        const auto& m = activity_.memory[e.index];
        Json j = slice(memory_activity_name(m.operation), m.operation == MemoryOperation::set ? "memset" : "memcpy", e);
        j["args"] = {{"bytes", m.bytes}, {"correlation id", m.correlation_id}};
        add_operator(j["args"], m.correlation_id);
        return j;
      }
      case Kind::flow_start:
      case Kind::flow_end: {
        Json j{{"name", "launch"}, {"cat", "launch"}, {"ph", e.kind == Kind::flow_start ? "s" : "f"},
               {"id", e.flow_id}, {"pid", e.pid}, {"tid", e.tid}, {"ts", us(e.start_ns)}};
        if (e.kind == Kind::flow_end) j["bp"] = "e";
        return j;
      }
    }
    return Json::object();
  }

  const std::vector<RangeRecord>& ranges_;
  const ActivityBatch& activity_;
  const std::vector<OperatorCallRecord>& calls_;
  const std::vector<std::string>& strings_;
  std::unordered_map<uint64_t, size_t> call_by_id_;
  std::unordered_map<uint32_t, uint64_t> call_of_correlation_;
  std::vector<Event> events_;
  std::set<std::pair<int64_t, int64_t>> tracks_;
  mutable std::unordered_map<std::string, std::pair<std::string, std::string>> names_;
  int64_t origin_ = 0;
};

}  // namespace

void write_chrome_trace(std::ostream& out, const std::vector<RangeRecord>& ranges, const ActivityBatch& activity,
                        const std::string& process_name) {
  const std::vector<OperatorCallRecord> no_calls;
  const std::vector<std::string> no_strings;
  TraceWriter(ranges, activity, no_calls, no_strings).write(out, process_name);
}

void write_chrome_trace(std::ostream& out, const TraceWindow& window, const std::string& process_name) {
  TraceWriter(window.ranges, window.activity, window.operator_calls, window.operator_strings).write(out, process_name);
}

}  // namespace stepscope
