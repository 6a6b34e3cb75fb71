#include "io/pickle_reader.h"

#include <cstdio>
#include <cstring>

namespace stepscope {
namespace pickle {

Value::~Value() {
  std::vector<ValuePtr> pending;
  auto steal = [&pending](Value& v) {
    for (auto& p : v.items) pending.push_back(std::move(p));
    for (auto& e : v.entries) {
      pending.push_back(std::move(e.first));
      pending.push_back(std::move(e.second));
    }
    v.items.clear();
    v.entries.clear();
  };
  steal(*this);
  while (!pending.empty()) {
    ValuePtr p = std::move(pending.back());
    pending.pop_back();
    // Only the last owner empties the node, so its destructor has nothing left to recurse into.
    if (p && p.use_count() == 1) steal(*p);
  }
}

ValuePtr make_int(int64_t v) {
  auto p = std::make_shared<Value>(Kind::Int);
  p->i = v;
  return p;
}

ValuePtr make_string(std::string v) {
  auto p = std::make_shared<Value>(Kind::String);
  p->s = std::move(v);
  return p;
}

ValuePtr make_global(std::string module, std::string name) {
  auto p = std::make_shared<Value>(Kind::Global);
  p->s = std::move(module);
  p->name = std::move(name);
  return p;
}

ValuePtr make_object(std::string tag, int64_t handle) {
  auto p = std::make_shared<Value>(Kind::Object);
  p->s = std::move(tag);
  p->i = handle;
  return p;
}

std::string describe(const Value& v) {
  switch (v.kind) {
    case Kind::None: return "None";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::String: return "str";
    case Kind::Tuple: return "tuple of " + std::to_string(v.items.size());
    case Kind::List: return "list of " + std::to_string(v.items.size());
    case Kind::Dict: return "dict of " + std::to_string(v.entries.size());
    case Kind::Global: return "global " + v.s + "." + v.name;
    case Kind::Object: return v.s;
  }
  return "?";
}

namespace {

class Unpickler {
 public:
  Unpickler(const char* data, size_t size, const Hooks& hooks)
      : p_(reinterpret_cast<const unsigned char*>(data)), end_(p_ + size), begin_(p_), hooks_(hooks) {}

  ValuePtr run() {
    while (true) {
      const size_t at = pos();
      const unsigned char op = read_u8();
      if (op == '.') {  // STOP
        if (stack_.size() != 1 || !marks_.empty())
          fail(at, "STOP with " + std::to_string(stack_.size()) + " values on the stack");
        return pop(at);
      }
      step(op, at);
    }
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& what) const {
    throw PickleError("pickle offset " + std::to_string(at) + ": " + what);
  }
  size_t pos() const { return static_cast<size_t>(p_ - begin_); }
  const unsigned char* take(uint64_t n) {
    if (n > static_cast<uint64_t>(end_ - p_)) fail(pos(), "unexpected end of data");
    const unsigned char* r = p_;
    p_ += n;
    return r;
  }
  unsigned char read_u8() { return *take(1); }
  uint64_t read_le(int n) {
    const unsigned char* b = take(static_cast<uint64_t>(n));
    uint64_t v = 0;
    for (int k = n - 1; k >= 0; --k) v = (v << 8) | b[k];
    return v;
  }
  std::string read_line() {
    const unsigned char* nl = static_cast<const unsigned char*>(
        std::memchr(p_, '\n', static_cast<size_t>(end_ - p_)));
    if (!nl) fail(pos(), "unterminated GLOBAL line");
    std::string s(reinterpret_cast<const char*>(p_), static_cast<size_t>(nl - p_));
    p_ = nl + 1;
    return s;
  }

  void push(ValuePtr v) { stack_.push_back(std::move(v)); }
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  ValuePtr pop(size_t at) {
    if (stack_.size() <= floor()) fail(at, "stack underflow");
    ValuePtr v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  Value& top(size_t at) {
    if (stack_.size() <= floor()) fail(at, "stack underflow");
    return *stack_.back();
  }
  std::vector<ValuePtr> pop_mark(size_t at) {
    if (marks_.empty()) fail(at, "no MARK on the stack");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<ValuePtr> items(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(m)),
                                std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return items;
  }
  void push_tuple(std::vector<ValuePtr> items) {
    auto t = std::make_shared<Value>(Kind::Tuple);
    t->items = std::move(items);
    push(std::move(t));
  }
  void tuple_n(size_t n, size_t at) {
    if (stack_.size() < floor() + n) fail(at, "stack underflow");
    std::vector<ValuePtr> items(std::make_move_iterator(stack_.end() - static_cast<std::ptrdiff_t>(n)),
                                std::make_move_iterator(stack_.end()));
    stack_.resize(stack_.size() - n);
    push_tuple(std::move(items));
  }
  void dict_set(Value& d, ValuePtr k, ValuePtr v, size_t at) {
    if (d.kind != Kind::Dict) fail(at, "SETITEM(S) on " + describe(d));
    if (k->kind == Kind::String) {
      auto it = d.str_keys.find(k->s);
      if (it != d.str_keys.end()) {
        d.entries[it->second].second = std::move(v);
        return;
      }
      d.str_keys.emplace(k->s, d.entries.size());
    }
    d.entries.emplace_back(std::move(k), std::move(v));
  }
  void memo_put(uint64_t idx, size_t at) {
    if (stack_.size() <= floor()) fail(at, "memoizing an empty stack");
    memo_[idx] = stack_.back();
  }
  void memo_get(uint64_t idx, size_t at) {
    auto it = memo_.find(idx);
    if (it == memo_.end()) fail(at, "memo key " + std::to_string(idx) + " not found");
    push(it->second);
  }
  void push_string(uint64_t n) {
    const unsigned char* b = take(n);
    push(make_string(std::string(reinterpret_cast<const char*>(b), static_cast<size_t>(n))));
  }
  void push_long(uint64_t n, size_t at) {
    if (n > 8) fail(at, "LONG1 integer wider than 64 bits");
    const unsigned char* b = take(n);
    uint64_t v = 0;
    for (uint64_t k = 0; k < n; ++k) v |= static_cast<uint64_t>(b[k]) << (8 * k);
    if (n > 0 && n < 8 && (b[n - 1] & 0x80)) v |= ~uint64_t{0} << (8 * n);  // sign-extend
    push(make_int(static_cast<int64_t>(v)));
  }

  void step(unsigned char op, size_t at) {
    switch (op) {
      case 0x80: {  // PROTO
        const unsigned v = read_u8();
        if (v < 2 || v > 5) fail(at, "unsupported pickle protocol " + std::to_string(v));
        break;
      }
      case 0x95: {  // FRAME: a length hint only
        const uint64_t n = read_le(8);
        if (n > static_cast<uint64_t>(end_ - p_)) fail(at, "FRAME longer than the data");
        break;
      }
      case '(': marks_.push_back(stack_.size()); break;  // MARK
      case '0': pop(at); break;                           // POP
      case '1': pop_mark(at); break;                      // POP_MARK
      case '2': {                                         // DUP
        ValuePtr v = pop(at);
        push(v);
        push(std::move(v));
        break;
      }
      case ')': push_tuple({}); break;                    // EMPTY_TUPLE
      case 't': push_tuple(pop_mark(at)); break;          // TUPLE
      case 0x85: tuple_n(1, at); break;                   // TUPLE1
      case 0x86: tuple_n(2, at); break;                   // TUPLE2
      case 0x87: tuple_n(3, at); break;                   // TUPLE3
      case ']': push(std::make_shared<Value>(Kind::List)); break;  // EMPTY_LIST
      case '}': push(std::make_shared<Value>(Kind::Dict)); break;  // EMPTY_DICT
      case 'a': {  // APPEND
        ValuePtr v = pop(at);
        Value& l = top(at);
        if (l.kind != Kind::List) fail(at, "APPEND to " + describe(l));
        l.items.push_back(std::move(v));
        break;
      }
      case 'e': {  // APPENDS
        std::vector<ValuePtr> items = pop_mark(at);
        Value& l = top(at);
        if (l.kind != Kind::List) fail(at, "APPENDS to " + describe(l));
        for (auto& v : items) l.items.push_back(std::move(v));
        break;
      }
      case 's': {  // SETITEM
        ValuePtr v = pop(at);
        ValuePtr k = pop(at);
        dict_set(top(at), std::move(k), std::move(v), at);
        break;
      }
      case 'u': {  // SETITEMS
        std::vector<ValuePtr> items = pop_mark(at);
        if (items.size() % 2 != 0) fail(at, "SETITEMS with an odd number of values");
        Value& d = top(at);
        for (size_t k = 0; k < items.size(); k += 2) dict_set(d, items[k], items[k + 1], at);
        break;
      }
      case 'q': memo_put(read_u8(), at); break;           // BINPUT
      case 'r': memo_put(read_le(4), at); break;          // LONG_BINPUT
      case 0x94: memo_put(memo_.size(), at); break;       // MEMOIZE
      case 'h': memo_get(read_u8(), at); break;           // BINGET
      case 'j': memo_get(read_le(4), at); break;          // LONG_BINGET
      case 'J': push(make_int(static_cast<int32_t>(static_cast<uint32_t>(read_le(4))))); break;  // BININT
      case 'K': push(make_int(read_u8())); break;         // BININT1
      case 'M': push(make_int(static_cast<int64_t>(read_le(2)))); break;  // BININT2
      case 0x8a: push_long(read_u8(), at); break;         // LONG1
      case 'N': push(std::make_shared<Value>(Kind::None)); break;  // NONE
      case 0x88:                                          // NEWTRUE
      case 0x89: {                                        // NEWFALSE
        auto v = std::make_shared<Value>(Kind::Bool);
        v->b = (op == 0x88);
        push(std::move(v));
        break;
      }
      case 'G': {  // BINFLOAT: big-endian IEEE double
        const unsigned char* b = take(8);
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = (bits << 8) | b[k];
        auto v = std::make_shared<Value>(Kind::Float);
        std::memcpy(&v->f, &bits, sizeof bits);
        push(std::move(v));
        break;
      }
      case 'X': push_string(read_le(4)); break;           // BINUNICODE
      case 0x8c: push_string(read_u8()); break;           // SHORT_BINUNICODE
      case 0x8d: push_string(read_le(8)); break;          // BINUNICODE8
      case 'c': {  // GLOBAL
        std::string module = read_line();
        std::string name = read_line();
        push(hooks_.find_global(module, name));
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        ValuePtr name = pop(at);
        ValuePtr module = pop(at);
        if (module->kind != Kind::String || name->kind != Kind::String)
          fail(at, "STACK_GLOBAL needs two strings");
        push(hooks_.find_global(module->s, name->s));
        break;
      }
      case 'R': {  // REDUCE
        ValuePtr args = pop(at);
        ValuePtr fn = pop(at);
        if (args->kind != Kind::Tuple) fail(at, "REDUCE arguments are " + describe(*args) + ", not a tuple");
        push(hooks_.reduce(*fn, *args));
        break;
      }
      case 'b': {  // BUILD
        ValuePtr state = pop(at);
        hooks_.build(top(at), *state);
        break;
      }
      case 'Q': {  // BINPERSID
        ValuePtr pid = pop(at);
        push(hooks_.persistent_load(*pid));
        break;
      }
      default: {
        char buf[64];
        if (op >= 0x20 && op < 0x7f)
          std::snprintf(buf, sizeof buf, "unsupported pickle opcode 0x%02x ('%c')", op, op);
        else
          std::snprintf(buf, sizeof buf, "unsupported pickle opcode 0x%02x", op);
        fail(at, buf);
      }
    }
  }

  const unsigned char* p_;
  const unsigned char* end_;
  const unsigned char* begin_;
  const Hooks& hooks_;
  std::vector<ValuePtr> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, ValuePtr> memo_;
};

}  // namespace

ValuePtr unpickle(const char* data, size_t size, const Hooks& hooks) {
  if (!hooks.find_global || !hooks.reduce || !hooks.build || !hooks.persistent_load)
    throw PickleError("unpickle: all hooks must be set");
  return Unpickler(data, size, hooks).run();
}

}  // namespace pickle
}  // namespace stepscope
