#pragma once
// Shared helpers for the engine/io tests: fixture paths, a minimal JSON reader for
// tests/data/io/expected.json (written by tests/reference/make_io_fixtures.py),
// and exact tensor comparison against those Python-computed values.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <unistd.h>

#ifndef STEPSCOPE_TEST_DATA_DIR
#define STEPSCOPE_TEST_DATA_DIR "tests/data"  // fallback: run from the repository root
#endif

namespace iotest {

inline std::string data_path(const std::string& name) { return std::string(STEPSCOPE_TEST_DATA_DIR) + "/io/" + name; }

inline std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

// A fresh directory for one test binary run.
inline const std::string& temp_dir() {
  static const std::string dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/stepscope_io_XXXXXX";
    if (!mkdtemp(&tmpl[0])) throw std::runtime_error("mkdtemp failed");
    return tmpl;
  }();
  return dir;
}

struct Json {
  enum Type { Null, Bool, Number, String, Array, Object } type = Null;
  bool b = false;
  std::string text;  // Number: the literal as written; String: the value
  std::vector<Json> arr;
  std::vector<std::pair<std::string, Json>> obj;

  const Json& operator[](const std::string& key) const {
    for (const auto& kv : obj)
      if (kv.first == key) return kv.second;
    throw std::runtime_error("JSON key not found: " + key);
  }
  double as_double() const { return std::strtod(text.c_str(), nullptr); }
  int64_t as_int() const { return std::strtoll(text.c_str(), nullptr, 10); }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& s) : s_(s) {}
  Json parse() {
    Json v = value();
    ws();
    if (i_ != s_.size()) fail();
    return v;
  }

 private:
  [[noreturn]] void fail() const { throw std::runtime_error("bad JSON at " + std::to_string(i_)); }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool lit(const char* w) {
    const size_t n = std::char_traits<char>::length(w);
    if (s_.compare(i_, n, w) != 0) return false;
    i_ += n;
    return true;
  }
  std::string str() {
    if (s_[i_] != '"') fail();
    std::string r;
    for (++i_; i_ < s_.size() && s_[i_] != '"'; ++i_) {
      if (s_[i_] == '\\') {
        ++i_;
        if (i_ >= s_.size() || s_[i_] == 'u') fail();  // fixtures use ASCII names only
        r += s_[i_] == 'n' ? '\n' : s_[i_];
      } else {
        r += s_[i_];
      }
    }
    if (i_ >= s_.size()) fail();
    ++i_;
    return r;
  }
  Json value() {
    ws();
    if (i_ >= s_.size()) fail();
    Json v;
    const char c = s_[i_];
    if (c == '{') {
      v.type = Json::Object;
      ++i_;
      ws();
      if (s_[i_] == '}') { ++i_; return v; }
      while (true) {
        ws();
        std::string k = str();
        ws();
        if (s_[i_++] != ':') fail();
        v.obj.emplace_back(std::move(k), value());
        ws();
        if (s_[i_] == ',') { ++i_; continue; }
        if (s_[i_++] != '}') fail();
        return v;
      }
    }
    if (c == '[') {
      v.type = Json::Array;
      ++i_;
      ws();
      if (s_[i_] == ']') { ++i_; return v; }
      while (true) {
        v.arr.push_back(value());
        ws();
        if (s_[i_] == ',') { ++i_; continue; }
        if (s_[i_++] != ']') fail();
        return v;
      }
    }
    if (c == '"') { v.type = Json::String; v.text = str(); return v; }
    if (lit("true")) { v.type = Json::Bool; v.b = true; return v; }
    if (lit("false")) { v.type = Json::Bool; return v; }
    if (lit("null")) return v;
    const size_t start = i_;
    while (i_ < s_.size() && std::string("+-0123456789.eE").find(s_[i_]) != std::string::npos) ++i_;
    if (i_ == start) fail();
    v.type = Json::Number;
    v.text = s_.substr(start, i_ - start);
    return v;
  }
  const std::string& s_;
  size_t i_ = 0;
};

inline const Json& expected() {
  static const Json j = [] {
    const std::string text = read_bytes(data_path("expected.json"));
    return JsonParser(text).parse();
  }();
  return j;
}

inline at::ScalarType dtype_from_name(const std::string& n) {
  if (n == "float32") return at::kFloat;
  if (n == "float64") return at::kDouble;
  if (n == "float16") return at::kHalf;
  if (n == "bfloat16") return at::kBFloat16;
  if (n == "int64") return at::kLong;
  if (n == "int32") return at::kInt;
  if (n == "int16") return at::kShort;
  if (n == "int8") return at::kChar;
  if (n == "uint8") return at::kByte;
  if (n == "bool") return at::kBool;
  throw std::runtime_error("unknown dtype " + n);
}

// Exact comparison of dtype, shape and every value with the Python reference.
inline void expect_matches(const at::Tensor& t, const Json& e) {
  ASSERT_TRUE(t.defined());
  EXPECT_EQ(t.scalar_type(), dtype_from_name(e["dtype"].text));
  std::vector<int64_t> shape;
  for (const auto& d : e["shape"].arr) shape.push_back(d.as_int());
  ASSERT_EQ(t.sizes().vec(), shape);
  const auto& vals = e["values"].arr;
  ASSERT_EQ(static_cast<size_t>(t.numel()), vals.size());
  if (t.is_floating_point()) {
    const at::Tensor d = t.to(at::kDouble).contiguous();
    const double* p = d.data_ptr<double>();
    for (size_t k = 0; k < vals.size(); ++k) ASSERT_EQ(p[k], vals[k].as_double()) << "element " << k;
  } else {
    const at::Tensor d = t.to(at::kLong).contiguous();
    const int64_t* p = d.data_ptr<int64_t>();
    for (size_t k = 0; k < vals.size(); ++k) ASSERT_EQ(p[k], vals[k].as_int()) << "element " << k;
  }
}

}  // namespace iotest
