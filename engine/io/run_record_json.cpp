#include "io/run_record_json.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "io/json_reader.h"
#include "io/run_record_fields.h"

namespace stepscope {

namespace {

using nlohmann::json;
using run_record_fields::visit_fields;

const char* const kFormat = "stepscope-run";
constexpr int64_t kVersion = 1;

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

template <class T>
struct IsSharedPtr : std::false_type {};
template <class T>
struct IsSharedPtr<std::shared_ptr<T>> : std::true_type {};

// Writes any value of a record; structs through their field lists.
class Writer {
 public:
  explicit Writer(size_t max_timeline_points) : max_timeline_points_(max_timeline_points) {}

  template <class T>
  json write(const T& value) const {
    if constexpr (std::is_integral_v<T> || std::is_same_v<T, std::string>) {  // bool included
      return value;
    } else if constexpr (std::is_floating_point_v<T>) {
      return json_double(value);
    } else if constexpr (std::is_enum_v<T>) {
      return to_string(value);
    } else if constexpr (std::is_same_v<T, profiling::CategoryBytes>) {
      // Keyed by name rather than by index, so that the file does not depend on enum order.
      json out = json::object();
      for (auto category : profiling::all_memory_categories()) {
        out[to_string(category)] = value[profiling::category_index(category)];
      }
      return out;
    } else if constexpr (std::is_same_v<T, std::vector<profiling::MemoryPoint>>) {
      return write_array(profiling::decimate(value, max_timeline_points_));  // only timelines hold points
    } else if constexpr (IsVector<T>::value) {
      return write_array(value);
    } else if constexpr (IsSharedPtr<T>::value) {
      return value ? write(*value) : json(nullptr);
    } else {
      json out = json::object();
      auto member = [&](const char* key, const auto& field) { out[key] = write(field); };
      visit_fields(member, value);
      return out;
    }
  }

 private:
  template <class T>
  json write_array(const std::vector<T>& values) const {
    json out = json::array();
    for (const auto& value : values) out.push_back(write(value));
    return out;
  }

  size_t max_timeline_points_;
};

// Enums without a parse_* function: the value whose to_string name is `text`.
template <class E>
E parse_named(const std::string& text, const std::vector<E>& values, const std::string& what) {
  std::string names;
  for (E value : values) {
    if (to_string(value) == text) return value;
    names += (names.empty() ? "" : ", ") + to_string(value);
  }
  throw std::invalid_argument("unknown " + what + " '" + text + "' (use " + names + ")");
}

void parse(const std::string& text, Precision& out) { out = parse_precision(text); }
void parse(const std::string& text, StepMode& out) { out = parse_step_mode(text); }
void parse(const std::string& text, RunStatus& out) {
  // bench_types lists no RunStatus values; keep this in step with the enum.
  out = parse_named(text, std::vector<RunStatus>{RunStatus::ok, RunStatus::out_of_memory, RunStatus::failed,
                                                 RunStatus::cancelled},
                    "status");
}
void parse(const std::string& text, profiling::KernelCategory& out) {
  out = parse_named(text, profiling::all_kernel_categories(), "kernel category");
}
void parse(const std::string& text, profiling::MemoryCategory& out) {
  out = parse_named(text, profiling::all_memory_categories(), "memory category");
}

// Reads any value of a record into `out`; structs through their field lists. Throws
// JsonReadError, after which `out` may be partly filled: callers read into a local.
template <class T>
void read(const JsonAt& at, T& out) {
  if constexpr (std::is_same_v<T, bool>) {
    out = read_bool(at);
  } else if constexpr (std::is_integral_v<T>) {
    out = read_integer<T>(at);
  } else if constexpr (std::is_floating_point_v<T>) {
    out = read_double(at);
  } else if constexpr (std::is_same_v<T, std::string>) {
    out = read_string(at);
  } else if constexpr (std::is_enum_v<T>) {
    const std::string text = read_string(at);
    try {
      parse(text, out);
    } catch (const std::invalid_argument& e) {  // ConfigError from the parse_* functions
      at.fail(e.what());
    }
  } else if constexpr (std::is_same_v<T, profiling::CategoryBytes>) {
    for (auto category : profiling::all_memory_categories()) {
      read(at.member(to_string(category)), out[profiling::category_index(category)]);
    }
  } else if constexpr (IsVector<T>::value) {
    const size_t n = at.array_size();
    out.clear();
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      out.emplace_back();
      read(at.element(i), out.back());
    }
  } else if constexpr (IsSharedPtr<T>::value) {
    if (at.value().is_null()) {
      out = nullptr;
    } else {
      std::remove_const_t<typename T::element_type> value;
      read(at, value);
      out = std::make_shared<typename T::element_type>(std::move(value));
    }
  } else {
    auto member = [&](const char* key, auto& field) { read(at.member(key), field); };
    visit_fields(member, out);
  }
}

}  // namespace

json to_json(const RunRecord& record, size_t max_timeline_points) {
  json document = Writer(max_timeline_points).write(record);
  document["format"] = kFormat;
  document["version"] = kVersion;
  return document;
}

RunRecord run_record_from_json(const json& document) {
  try {
    const JsonAt root(document, "");
    // Format and version first: a newer file's other changes should not be reported as errors.
    const JsonAt format = root.member("format");
    const std::string name = read_string(format);
    if (name != kFormat) format.fail(std::string("expected \"") + kFormat + "\", got \"" + name + "\"");
    const JsonAt version = root.member("version");
    const int64_t number = read_int64(version);
    if (number > kVersion) {
      version.fail(std::to_string(number) + " is newer than this build reads (" + std::to_string(kVersion) + ")");
    }
    if (number < 1) version.fail("no version " + std::to_string(number) + " exists");
    RunRecord record;
    read(root, record);
    return record;
  } catch (const JsonReadError& e) {
    throw RunRecordError(e.what());
  }
}

std::string write_run_record(const RunRecord& record, size_t max_timeline_points) {
  return to_json(record, max_timeline_points).dump(-1, ' ', false, json::error_handler_t::replace);
}

RunRecord read_run_record(const std::string& text) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& e) {
    throw RunRecordError(std::string("malformed JSON: ") + e.what());
  }
  return run_record_from_json(document);
}

void write_run_record_file(const std::string& path, const RunRecord& record, size_t max_timeline_points) {
  const std::string text = write_run_record(record, max_timeline_points);
  const std::string temporary = path + ".tmp";
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw RunRecordError("cannot write " + temporary + ": " + reason);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw RunRecordError("cannot replace " + path + ": " + reason);
  }
}

RunRecord read_run_record_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RunRecordError("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw RunRecordError("cannot read " + path);
  try {
    return read_run_record(text.str());
  } catch (const RunRecordError& e) {
    throw RunRecordError(path + ": " + e.what());
  }
}

}  // namespace stepscope
