#include "imports/torch_trace.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <streambuf>
#include <unordered_map>

#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include "imports/legacy_trace_events.h"

#ifdef STEPSCOPE_HAVE_ZLIB
#include "imports/gzip_buffer.h"
#endif

namespace stepscope::imports {

namespace {

using nlohmann::json;

// Microseconds as the trace writes them (fractions of a microsecond) to nanoseconds.
int64_t to_ns(double us) { return std::llround(us * 1000.0); }

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string id_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer() || v.is_number_unsigned()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return std::to_string(v.get<double>());
  return "?";
}

// A JSON array of dimensions as Python prints a list: "[[64, 64], []]"; anything but arrays and
// integers (a newer trace's own notation) as JSON writes it.
void append_dims(std::string& out, const json& v) {
  if (v.is_array()) {
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i > 0) out += ", ";
      append_dims(out, v[i]);
    }
    out += ']';
  } else if (v.is_number_integer() || v.is_number_unsigned()) {
    out += std::to_string(v.get<int64_t>());
  } else {
    out += v.dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

uint32_t intern(std::vector<std::string>& table, std::unordered_map<std::string, uint32_t>& ids, const std::string& s) {
  const auto [it, inserted] = ids.try_emplace(s, static_cast<uint32_t>(table.size()));
  if (inserted) table.push_back(s);
  return it->second;
}

profiling::MemoryOperation copy_kind(const std::string& name) {
  using profiling::MemoryOperation;
  if (name.find("HtoD") != std::string::npos) return MemoryOperation::copy_host_to_device;
  if (name.find("DtoH") != std::string::npos) return MemoryOperation::copy_device_to_host;
  if (name.find("DtoD") != std::string::npos) return MemoryOperation::copy_device_to_device;
  return MemoryOperation::copy_other;
}

uint64_t arg_u64(const json& args, const char* key) {
  const auto it = args.find(key);
  if (it == args.end() || !it->is_number()) return 0;
  const double v = it->get<double>();
  return v >= 0 && v < 1.8e19 ? static_cast<uint64_t>(v) : 0;
}

uint32_t arg_u32(const json& args, const char* key) {
  const auto it = args.find(key);
  if (it == args.end() || !it->is_number()) return 0;
  const double v = it->get<double>();
  return v >= 0 && v <= 4294967295.0 ? static_cast<uint32_t>(v) : 0;
}

// Turns events into records; everything a trace may hold that this reader does not use is
// counted as skipped.
class EventSink {
 public:
  explicit EventSink(TorchTrace& trace) : trace_(trace) {}

  void add(const json& e) {
    ++trace_.events;
    if (!e.is_object()) return skip();
    const auto ph = e.find("ph");
    const auto ts = e.find("ts");
    const auto dur = e.find("dur");
    // Complete events ("X") carry what is used; flows, counters and metadata are not.
    if (ph == e.end() || !ph->is_string() || ph->get<std::string>() != "X" || ts == e.end() || !ts->is_number() ||
        dur == e.end() || !dur->is_number()) {
      return skip();
    }
    const auto name_it = e.find("name");
    const auto cat = e.find("cat");
    if ((name_it != e.end() && !name_it->is_string()) || (cat != e.end() && !cat->is_string())) return skip();
    const std::string name = name_it != e.end() ? name_it->get<std::string>() : std::string();
    std::string category;
    if (cat != e.end()) {
      category = lower(cat->get<std::string>());
    } else {
      // The legacy exporter's: an operator or an annotation, as its name says.
      if (name.empty()) return skip();
      ++trace_.uncategorized_events;
      category = names_an_operator(name) ? "cpu_op" : "user_annotation";
    }
    const int64_t start = to_ns(ts->get<double>());
    const int64_t end = start + std::max<int64_t>(0, to_ns(dur->get<double>()));
    static const json no_args = json::object();
    const auto args_it = e.find("args");
    const json& args = args_it != e.end() && args_it->is_object() ? *args_it : no_args;
    if (category == "user_annotation") {
      trace_.ranges.push_back({name, thread(e), start, end});
    } else if (category == "cuda_runtime" || category == "runtime" || category == "cuda_driver" ||
               category == "driver") {
      const bool driver = category.find("driver") != std::string::npos;
      trace_.api_calls.push_back({arg_u32(args, "correlation"), thread(e), start, end,
                                  intern(trace_.api_names, api_ids_, name), driver});
    } else if (category == "kernel") {
      TraceActivity a;
      a.name = intern(trace_.kernel_names, kernel_ids_, name);
      set_gpu(a, args, start, end);
      trace_.activities.push_back(a);
    } else if (category == "gpu_memcpy" || category == "memcpy" || category == "gpu_memset" || category == "memset") {
      TraceActivity a;
      a.is_memory = true;
      a.operation = category.find("memset") != std::string::npos ? profiling::MemoryOperation::set : copy_kind(name);
      a.bytes = arg_u64(args, "bytes");
      set_gpu(a, args, start, end);
      trace_.activities.push_back(a);
    } else if (category == "cpu_op" || category == "operator") {
      std::string shapes;
      const auto dims = args.find("Input Dims");
      const bool recorded = dims != args.end() && dims->is_array();
      trace_.input_shapes_recorded = trace_.input_shapes_recorded || recorded;
      append_dims(shapes, recorded ? *dims : json::array());
      trace_.operators.push_back({intern(trace_.operator_names, operator_ids_, name),
                                  intern(trace_.shape_texts, shape_ids_, shapes), thread(e), start, end});
    } else {
      skip();
    }
  }

 private:
  void skip() { ++trace_.skipped_events; }
  static void set_gpu(TraceActivity& a, const json& args, int64_t start, int64_t end) {
    a.start_ns = start;
    a.end_ns = end;
    a.correlation = arg_u32(args, "correlation");
    a.device = arg_u32(args, "device");
    a.stream = arg_u32(args, "stream");
  }
  uint32_t thread(const json& e) {
    const auto pid = e.find("pid");
    const auto tid = e.find("tid");
    const std::string key = (pid != e.end() ? id_text(*pid) : "?") + "/" + (tid != e.end() ? id_text(*tid) : "?");
    return intern(trace_.threads, thread_ids_, key);
  }

  TorchTrace& trace_;
  std::unordered_map<std::string, uint32_t> thread_ids_, api_ids_, kernel_ids_, operator_ids_, shape_ids_;
};

// nlohmann's SAX interface: builds one event at a time (and the small deviceProperties array)
// and hands it to the sink, so memory never holds the document.
class TraceSax : public nlohmann::json_sax<json> {
 public:
  TraceSax(TorchTrace& trace, std::function<bool()> keep_going) : trace_(trace), sink_(trace), keep_going_(std::move(keep_going)) {}

  bool null() override { return value(json(nullptr)); }
  bool boolean(bool v) override { return value(json(v)); }
  bool number_integer(number_integer_t v) override { return value(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return value(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return value(json(v)); }
  bool string(string_t& v) override { return value(json(std::move(v))); }
  bool binary(binary_t&) override { return value(json()); }
  bool key(string_t& k) override {
    if (!stack_.empty()) {
      key_ = std::move(k);
    } else if (depth_ == 1 && root_is_object_) {
      root_key_ = std::move(k);
    }
    return true;
  }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    error_ = "not valid JSON at byte " + std::to_string(position) + ": " + e.what();
    return false;
  }

  const std::string& error() const { return error_; }
  bool saw_events() const { return saw_events_; }
  bool cancelled() const { return cancelled_; }

 private:
  // Containers the reader keeps: an event (an element of the events array) and the
  // top-level deviceProperties array.
  bool open(json container) {
    ++depth_;
    if (depth_ == 1) {
      root_is_object_ = container.is_object();
      if (!root_is_object_) {  // a bare array of events
        events_depth_ = 1;
        events_open_ = true;
      }
      return true;
    }
    if (stack_.empty()) {
      if (depth_ == 2 && root_is_object_ && container.is_array() && root_key_ == "traceEvents") {
        events_depth_ = 2;
        events_open_ = true;
        saw_events_ = true;
        return true;
      }
      const bool event = events_open_ && depth_ == events_depth_ + 1;
      const bool devices = depth_ == 2 && root_is_object_ && root_key_ == "deviceProperties";
      if (!event && !devices) return true;  // not kept: skipped by depth
      if (event && events_depth_ == 1) saw_events_ = true;
      current_ = std::move(container);
      stack_.push_back(&current_);
      return true;
    }
    json* parent = stack_.back();
    json* child;
    if (parent->is_object()) {
      child = &(*parent)[key_];
      *child = std::move(container);
    } else {
      parent->push_back(std::move(container));
      child = &parent->back();
    }
    stack_.push_back(child);
    return true;
  }

  bool close() {
    --depth_;
    if (stack_.empty()) {
      if (events_open_ && depth_ < events_depth_) events_open_ = false;  // the events array ended
      return true;
    }
    stack_.pop_back();
    if (!stack_.empty()) return true;
    if (depth_ == events_depth_) {
      sink_.add(current_);
      if ((trace_.events & 0x3fff) == 0 && keep_going_ && !keep_going_()) {
        cancelled_ = true;
        return false;
      }
    } else if (current_.is_array()) {
      for (const auto& device : current_) {
        if (device.is_object()) trace_.devices.push_back(device.value("name", std::string("?")));
      }
    }
    current_ = json();
    return true;
  }

  bool value(json v) {
    if (stack_.empty()) {
      if (depth_ == 1 && root_is_object_ && root_key_ == "schemaVersion") trace_.schema_version = id_text(v);
      if (depth_ == 1 && root_is_object_ && root_key_ == "baseTimeNanoseconds" && v.is_number_integer()) {
        trace_.base_time_ns = v.get<int64_t>();
      }
      if (events_open_ && depth_ == events_depth_) sink_.add(v);  // an event that is no object: skipped
      return true;
    }
    json* top = stack_.back();
    if (top->is_object()) {
      (*top)[key_] = std::move(v);
    } else {
      top->push_back(std::move(v));
    }
    return true;
  }

  TorchTrace& trace_;
  EventSink sink_;
  std::function<bool()> keep_going_;
  int depth_ = 0;
  int events_depth_ = -1;
  bool root_is_object_ = false;
  bool events_open_ = false;
  bool saw_events_ = false;
  bool cancelled_ = false;
  std::string root_key_, key_;
  json current_;
  std::vector<json*> stack_;
  std::string error_;
};


void finish(const TraceSax& sax, bool parsed, const std::string& name) {
  if (sax.cancelled()) throw TraceImportError(name + ": cancelled");
  if (!parsed) {
    throw TraceImportError(name + ": " + (sax.error().empty() ? "the trace ends before its JSON does" : sax.error()));
  }
  if (!sax.saw_events()) {
    throw TraceImportError(name + ": no \"traceEvents\" array: not a Chrome trace (torch.profiler's "
                                  "export_chrome_trace writes one)");
  }
}

}  // namespace

void require_trace_events(const TorchTrace& trace, const std::string& name) {
  const bool any = !trace.ranges.empty() || !trace.operators.empty() || !trace.api_calls.empty() ||
                   !trace.activities.empty();
  if (any) return;
  throw TraceImportError(name + ": none of its " + std::to_string(trace.events) +
                         " trace events is one torch.profiler writes (a complete event, \"ph\": \"X\", with a "
                         "name, \"ts\" and \"dur\"): nothing to import");
}

bool reads_gzip() {
#ifdef STEPSCOPE_HAVE_ZLIB
  return true;
#else
  return false;
#endif
}

TorchTrace read_torch_trace_text(const std::string& text, const std::string& name) {
  TorchTrace trace;
  TraceSax sax(trace, {});
  const bool parsed = json::sax_parse(text, &sax, json::input_format_t::json, false);
  finish(sax, parsed, name);
  return trace;
}

TorchTrace read_torch_trace(const std::string& path, const TraceReadOptions& options) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    throw TraceImportError(path + ": no such file");
  }
  const double size = std::max<double>(1.0, static_cast<double>(info.st_size));
  TorchTrace trace;
#ifdef STEPSCOPE_HAVE_ZLIB
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw TraceImportError(path + ": cannot be opened");
  GzBuf buffer(file);
  std::istream in(&buffer);
  TraceSax sax(trace, [&] { return !options.progress || options.progress(buffer.compressed_offset() / size); });
  bool parsed = false;
  try {
    parsed = json::sax_parse(in, &sax, json::input_format_t::json, false);
  } catch (const std::ios_base::failure&) {
    parsed = false;
  }
  if (!parsed && !buffer.error().empty()) throw TraceImportError(path + ": " + buffer.error());
#else
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceImportError(path + ": cannot be opened");
  if (in.peek() == 0x1f) {
    throw TraceImportError(path + ": gzip-compressed, and this build reads no gzip (built without zlib): "
                                  "gunzip it first");
  }
  TraceSax sax(trace, [&] {
    return !options.progress || options.progress(static_cast<double>(in.tellg()) / size);
  });
  const bool parsed = json::sax_parse(in, &sax, json::input_format_t::json, false);
#endif
  finish(sax, parsed, path);
  if (options.progress) options.progress(1.0);
  return trace;
}

}  // namespace stepscope::imports
