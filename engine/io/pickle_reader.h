#pragma once
// A small, strict unpickler for the subset of the pickle format that torch.save
// emits for a state_dict. It only builds plain values; everything that calls
// into Python (GLOBAL, REDUCE, BUILD, BINPERSID) is delegated to hooks, so the
// caller decides what is allowed. Internal to engine/io.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace stepscope {
namespace pickle {

class PickleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Kind { None, Bool, Int, Float, String, Tuple, List, Dict, Global, Object };

struct Value;
using ValuePtr = std::shared_ptr<Value>;

struct Value {
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;           // Int value; Object handle
  double f = 0.0;
  std::string s;           // String value; Global module; Object tag
  std::string name;        // Global name
  std::vector<ValuePtr> items;                         // Tuple, List
  std::vector<std::pair<ValuePtr, ValuePtr>> entries;  // Dict, in insertion order
  std::unordered_map<std::string, size_t> str_keys;    // Dict: string key -> entry index

  Value() = default;
  explicit Value(Kind k) : kind(k) {}
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;
  // Iterative teardown: a hostile pickle can nest containers deeply enough to
  // overflow the stack with recursive shared_ptr destruction.
  ~Value();
};

ValuePtr make_int(int64_t v);
ValuePtr make_string(std::string v);
ValuePtr make_global(std::string module, std::string name);
ValuePtr make_object(std::string tag, int64_t handle);

// Short, non-recursive description for error messages ("int", "tuple of 3", ...).
std::string describe(const Value& v);

struct Hooks {
  // Returns the value GLOBAL pushes, or throws PickleError for a disallowed global.
  std::function<ValuePtr(const std::string& module, const std::string& name)> find_global;
  // REDUCE: callable(*args). args is always a Tuple.
  std::function<ValuePtr(const Value& callable, const Value& args)> reduce;
  // BUILD: obj.__setstate__(state); may modify obj.
  std::function<void(Value& obj, const Value& state)> build;
  // BINPERSID: resolves a persistent id.
  std::function<ValuePtr(const Value& pid)> persistent_load;
};

// Unpickles one object from [data, data + size). Throws PickleError on any
// malformed input or unknown opcode (naming it), and whatever the hooks throw.
ValuePtr unpickle(const char* data, size_t size, const Hooks& hooks);

}  // namespace pickle
}  // namespace stepscope
