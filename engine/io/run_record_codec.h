// Internal to the run-record files: writes and reads any value of a record as JSON, structs
// through their field lists (run_record_fields.h). Integers stay exact, doubles round-trip,
// enums and devices go by their to_string names, timelines are decimated to a point budget.
#pragma once

#include <memory>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/json_reader.h"
#include "io/run_record_fields.h"

namespace stepscope::run_record_codec {

using nlohmann::json;
using run_record_fields::visit_fields;

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
    } else if constexpr (std::is_enum_v<T> || std::is_same_v<T, Device>) {
      return to_string(value);  // a Device as typed: "cpu", "cuda", "cuda:1"
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
      auto member = [&](const char* key, const auto& field, auto... /*added_later*/) { out[key] = write(field); };
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

inline void parse(const std::string& text, Precision& out) { out = parse_precision(text); }
inline void parse(const std::string& text, StepMode& out) { out = parse_step_mode(text); }
inline void parse(const std::string& text, RunStatus& out) { out = parse_run_status(text); }
inline void parse(const std::string& text, AttentionImpl& out) { out = parse_attention_impl(text); }
inline void parse(const std::string& text, EngineKind& out) { out = parse_engine_kind(text); }
inline void parse(const std::string& text, Device& out) { out = parse_device(text); }
inline void parse(const std::string& text, profiling::KernelCategory& out) {
  out = parse_named(text, profiling::all_kernel_categories(), "kernel category");
}
inline void parse(const std::string& text, profiling::MemoryCategory& out) {
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
  } else if constexpr (std::is_enum_v<T> || std::is_same_v<T, Device>) {
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
    auto member = [&](const char* key, auto& field, auto... added_later) {
      if constexpr (sizeof...(added_later) > 0) {
        if (at.value().is_object() && !at.value().contains(key)) return;
      }
      read(at.member(key), field);
    };
    visit_fields(member, out);
  }
}

}  // namespace stepscope::run_record_codec
