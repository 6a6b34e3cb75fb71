#include "io/json_reader.h"

#include <cmath>

namespace stepscope {

namespace {

const char* const kNaN = "NaN";
const char* const kInfinity = "Infinity";
const char* const kMinusInfinity = "-Infinity";

// What was found instead: a number is shown (a float where an integer belongs), the rest by type.
std::string found(const nlohmann::json& value) {
  return value.is_number() ? value.dump() : std::string(value.type_name());
}

[[noreturn]] void expected(const JsonAt& at, const std::string& what) {
  at.fail("expected " + what + ", got " + found(at.value()));
}

}  // namespace

JsonAt JsonAt::member(const std::string& key) const {
  if (!value_->is_object()) expected(*this, "an object");
  const auto it = value_->find(key);
  const std::string path = path_.empty() ? key : path_ + "." + key;
  if (it == value_->end()) throw JsonReadError(path + ": missing");
  return JsonAt(*it, path);
}

size_t JsonAt::array_size() const {
  if (!value_->is_array()) expected(*this, "an array");
  return value_->size();
}

JsonAt JsonAt::element(size_t i) const {
  if (i >= array_size()) fail("no element " + std::to_string(i));
  return JsonAt((*value_)[i], path_ + "[" + std::to_string(i) + "]");
}

void JsonAt::fail(const std::string& problem) const {
  throw JsonReadError((path_.empty() ? std::string("document") : path_) + ": " + problem);
}

std::string read_string(const JsonAt& at) {
  if (!at.value().is_string()) expected(at, "a string");
  return at.value().get<std::string>();
}

bool read_bool(const JsonAt& at) {
  if (!at.value().is_boolean()) expected(at, "true or false");
  return at.value().get<bool>();
}

int64_t read_int64(const JsonAt& at) {
  const auto& v = at.value();
  if (!v.is_number_integer()) expected(at, "an integer");
  if (v.is_number_unsigned()) {
    const auto value = v.get<uint64_t>();
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) expected(at, "a 64-bit signed integer");
    return static_cast<int64_t>(value);
  }
  return v.get<int64_t>();
}

uint64_t read_uint64(const JsonAt& at) {
  const auto& v = at.value();
  // A document built in code holds 5 as a signed integer; parsed text holds it as unsigned.
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (!v.is_number_integer() || v.get<int64_t>() < 0) expected(at, "a non-negative integer");
  return static_cast<uint64_t>(v.get<int64_t>());
}

double read_double(const JsonAt& at) {
  const auto& v = at.value();
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& text = v.get_ref<const std::string&>();
    if (text == kNaN) return std::nan("");
    if (text == kInfinity) return HUGE_VAL;
    if (text == kMinusInfinity) return -HUGE_VAL;
  }
  expected(at, std::string("a number (or \"") + kNaN + "\", \"" + kInfinity + "\", \"" + kMinusInfinity + "\")");
}

nlohmann::json parse_json_bounded(const std::string& text, size_t max_values) {
  size_t values = 0;
  const nlohmann::json::parser_callback_t count = [&](int, nlohmann::json::parse_event_t event, nlohmann::json&) {
    if (event == nlohmann::json::parse_event_t::value || event == nlohmann::json::parse_event_t::key) {
      if (++values > max_values) {
        throw JsonReadError("document: more than " + std::to_string(max_values) +
                            " values and keys, past what a run file holds (50,000 configurations hold 8.3 million)");
      }
    }
    return true;
  };
  return nlohmann::json::parse(text, count);
}

nlohmann::json json_double(double value) {
  if (std::isnan(value)) return kNaN;
  if (std::isinf(value)) return value > 0 ? kInfinity : kMinusInfinity;
  return value;
}

}  // namespace stepscope
