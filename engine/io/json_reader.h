// Typed reading of a parsed JSON document that keeps the path of every value, so that an
// error says where the document is wrong: "entries[2].result.config.context: expected an
// integer, got string". Only checked accessors are used: bad input throws, never asserts.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace stepscope {

class JsonReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A value of the document and its path from the root ("" for the root itself).
class JsonAt {
 public:
  JsonAt(const nlohmann::json& value, std::string path) : value_(&value), path_(std::move(path)) {}

  const nlohmann::json& value() const { return *value_; }
  const std::string& path() const { return path_; }

  // Throw when this is not an object, or has no member `key`.
  JsonAt member(const std::string& key) const;
  // Throw when this is not an array.
  size_t array_size() const;
  // Element i of an array; i < array_size().
  JsonAt element(size_t i) const;

  // Throws JsonReadError "<path>: <problem>".
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  const nlohmann::json* value_;
  std::string path_;
};

std::string read_string(const JsonAt& at);
bool read_bool(const JsonAt& at);
int64_t read_int64(const JsonAt& at);
uint64_t read_uint64(const JsonAt& at);
// Any number, or one of the names json_double writes for values JSON has no number for.
double read_double(const JsonAt& at);

// The most values and keys a document may hold. A parse builds about 16 bytes per value and
// 100 per key: a file of [0,0,0,...] within the size limit (io/input_file.h) would otherwise
// take 18 times its size (4.6 GB for 256 MiB). The largest run files Stepscope writes (50,000
// configurations, 79 MB) hold 8.3 million.
inline constexpr size_t kMostJsonValues = 16'000'000;

// Parses `text`, stopping with JsonReadError once it holds more than `max_values` values and
// keys, before the rest is built; malformed text throws nlohmann::json::parse_error.
nlohmann::json parse_json_bounded(const std::string& text, size_t max_values = kMostJsonValues);

// JSON numbers cannot be NaN or infinite (nlohmann would write null and lose the value), so
// those become the strings "NaN", "Infinity" and "-Infinity"; every other double is exact.
nlohmann::json json_double(double value);

// An integer of type Int, range-checked.
template <class Int>
Int read_integer(const JsonAt& at) {
  static_assert(std::is_integral_v<Int> && !std::is_same_v<Int, bool>);
  using Limits = std::numeric_limits<Int>;
  const auto range = [] { return "expected an integer from " + std::to_string(Limits::min()) + " to " +
                                 std::to_string(Limits::max()); };
  if constexpr (std::is_signed_v<Int>) {
    const int64_t value = read_int64(at);
    if (value < Limits::min() || value > Limits::max()) at.fail(range());
    return static_cast<Int>(value);
  } else {
    const uint64_t value = read_uint64(at);
    if (value > Limits::max()) at.fail(range());
    return static_cast<Int>(value);
  }
}

}  // namespace stepscope
