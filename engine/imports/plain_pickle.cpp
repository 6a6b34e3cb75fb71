#include "imports/plain_pickle.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace stepscope::imports {

const char* python_type_name(PlainKind kind) {
  switch (kind) {
    case PlainKind::none: return "None";
    case PlainKind::boolean: return "bool";
    case PlainKind::integer: return "int";
    case PlainKind::floating: return "float";
    case PlainKind::string: return "str";
    case PlainKind::tuple: return "tuple";
    case PlainKind::list: return "list";
    case PlainKind::dict: return "dict";
  }
  return "?";
}

double PlainPickle::floating(Node n) const {
  double f = 0;
  std::memcpy(&f, &nodes_[n].value, sizeof f);
  return f;
}

std::string_view PlainPickle::string(Node n) const {
  return data_.substr(static_cast<size_t>(nodes_[n].value), nodes_[n].aux);
}

PlainPickle::Items PlainPickle::items(Node n) const {
  const Cell& c = nodes_[n];
  if (c.aux == kNoItems || (c.kind != PlainKind::tuple && c.kind != PlainKind::list && c.kind != PlainKind::dict)) {
    return {};
  }
  const std::vector<Node>& v = item_lists_[c.aux];
  return {v.data(), v.data() + v.size()};
}

class PlainDecoder {
 public:
  PlainDecoder(std::string_view data, const std::function<bool(double)>& progress)
      : p_(reinterpret_cast<const unsigned char*>(data.data())), begin_(p_), end_(p_ + data.size()),
        progress_(progress) {
    out_.data_ = data;
  }

  PlainPickle run() {
    if (out_.data_.size() >= UINT32_MAX) fail(0, "a pickle of 4 GiB or more");
    const double size = static_cast<double>(std::max<size_t>(1, out_.data_.size()));
    for (uint32_t ops = 1;; ++ops) {
      if (progress_ && ops % kOpsPerProgress == 0 && !progress_(static_cast<double>(pos()) / size)) {
        throw PlainPickleCancelled();
      }
      const size_t at = pos();
      const unsigned char op = read_u8();
      if (op == '.') {  // STOP
        if (stack_.size() != 1 || !marks_.empty()) {
          fail(at, "STOP with " + std::to_string(stack_.size()) + " values on the stack");
        }
        out_.root_ = stack_.back();
        return std::move(out_);
      }
      step(op, at);
    }
  }

 private:
  using Node = PlainPickle::Node;
  using Cell = PlainPickle::Cell;

  [[noreturn]] void fail(size_t at, const std::string& what, bool calls_python = false) const {
    throw PlainPickleError("pickle offset " + std::to_string(at) + ": " + what, calls_python);
  }
  size_t pos() const { return static_cast<size_t>(p_ - begin_); }
  const unsigned char* take(uint64_t n) {
    if (n > static_cast<uint64_t>(end_ - p_)) fail(pos(), "the data ends inside an opcode (a truncated file?)");
    const unsigned char* r = p_;
    p_ += n;
    return r;
  }
  unsigned char read_u8() {
    if (p_ == end_) fail(pos(), "the data ends before the pickle's STOP (a truncated file?)");
    return *p_++;
  }
  uint64_t read_le(int n) {
    const unsigned char* b = take(static_cast<uint64_t>(n));
    uint64_t v = 0;
    for (int k = n - 1; k >= 0; --k) v = (v << 8) | b[k];
    return v;
  }

  Node add(PlainKind kind, int64_t value = 0, uint32_t aux = PlainPickle::kNoItems) {
    out_.nodes_.push_back(Cell{kind, aux, value});
    return static_cast<Node>(out_.nodes_.size() - 1);
  }
  void push(Node n) { stack_.push_back(n); }
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  Node pop(size_t at) {
    if (stack_.size() <= floor()) fail(at, "stack underflow");
    const Node n = stack_.back();
    stack_.pop_back();
    return n;
  }
  Node top(size_t at) const {
    if (stack_.size() <= floor()) fail(at, "stack underflow");
    return stack_.back();
  }
  // The values above the last MARK, which is removed.
  std::vector<Node> pop_mark(size_t at) {
    if (marks_.empty()) fail(at, "no MARK on the stack");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<Node> items(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
    stack_.resize(m);
    return items;
  }
  Node container(PlainKind kind, std::vector<Node> items) {
    if (items.empty()) return add(kind);
    out_.item_lists_.push_back(std::move(items));
    return add(kind, 0, static_cast<uint32_t>(out_.item_lists_.size() - 1));
  }
  std::vector<Node>& items_of(Node n) {
    Cell& c = out_.nodes_[n];
    if (c.aux == PlainPickle::kNoItems) {
      out_.item_lists_.emplace_back();
      c.aux = static_cast<uint32_t>(out_.item_lists_.size() - 1);
    }
    return out_.item_lists_[c.aux];
  }
  void append(Node list, const Node* first, size_t count, size_t at) {
    if (out_.nodes_[list].kind != PlainKind::list) {
      fail(at, std::string("APPEND to a ") + python_type_name(out_.nodes_[list].kind));
    }
    if (count == 0) return;
    std::vector<Node>& items = items_of(list);
    items.insert(items.end(), first, first + count);
  }
  void set_items(Node dict, const Node* first, size_t count, size_t at) {
    if (out_.nodes_[dict].kind != PlainKind::dict) {
      fail(at, std::string("SETITEM on a ") + python_type_name(out_.nodes_[dict].kind));
    }
    if (count % 2 != 0) fail(at, "SETITEMS with an odd number of values");
    if (count == 0) return;
    std::vector<Node>& items = items_of(dict);
    items.insert(items.end(), first, first + count);
  }
  void tuple_n(size_t n, size_t at) {
    if (stack_.size() < floor() + n) fail(at, "stack underflow");
    std::vector<Node> items(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
    stack_.resize(stack_.size() - n);
    push(container(PlainKind::tuple, std::move(items)));
  }
  void memo_put(uint64_t index, size_t at) {
    if (stack_.size() <= floor()) fail(at, "memoizing an empty stack");
    // A real pickle numbers its memo from 0, one entry per opcode at most.
    if (index >= out_.data_.size()) fail(at, "memo index " + std::to_string(index) + " beyond the data's size");
    if (index >= memo_.size()) memo_.resize(static_cast<size_t>(index) + 1, kUnset);
    Node& slot = memo_[static_cast<size_t>(index)];
    if (slot == kUnset) ++memo_count_;
    slot = stack_.back();
  }
  void memo_get(uint64_t index, size_t at) {
    if (index >= memo_.size() || memo_[static_cast<size_t>(index)] == kUnset) {
      fail(at, "memo key " + std::to_string(index) + " not found");
    }
    push(memo_[static_cast<size_t>(index)]);
  }
  void push_string(uint64_t n, size_t at) {
    if (n >= UINT32_MAX) fail(at, "a string of 4 GiB or more");
    const size_t offset = pos();
    take(n);
    push(add(PlainKind::string, static_cast<int64_t>(offset), static_cast<uint32_t>(n)));
  }
  void push_long(uint64_t n, size_t at) {
    if (n > 8) fail(at, "an integer wider than 64 bits");
    const unsigned char* b = take(n);
    uint64_t v = 0;
    for (uint64_t k = 0; k < n; ++k) v |= static_cast<uint64_t>(b[k]) << (8 * k);
    if (n > 0 && n < 8 && (b[n - 1] & 0x80)) v |= ~uint64_t{0} << (8 * n);  // sign-extend
    push(add(PlainKind::integer, static_cast<int64_t>(v)));
  }
  [[noreturn]] void refuse_call(size_t at, const char* opcode, const std::string& target = {}) const {
    fail(at, std::string(opcode) + (target.empty() ? "" : " " + target) +
                 ": the pickle asks to run Python code; only plain data (dicts, lists, strings, numbers) is read",
         true);
  }
  std::string read_line(size_t at) {
    const void* nl = std::memchr(p_, '\n', static_cast<size_t>(end_ - p_));
    if (!nl) fail(at, "an unterminated GLOBAL");
    const auto* e = static_cast<const unsigned char*>(nl);
    std::string s(reinterpret_cast<const char*>(p_), static_cast<size_t>(e - p_));
    p_ = e + 1;
    return s.size() > 80 ? s.substr(0, 80) + "..." : s;
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
        if (n > static_cast<uint64_t>(end_ - p_)) fail(at, "a FRAME longer than the data (a truncated file?)");
        break;
      }
      case '(': marks_.push_back(stack_.size()); break;  // MARK
      case '0': pop(at); break;                           // POP
      case '1': pop_mark(at); break;                      // POP_MARK
      case '2': push(top(at)); break;                     // DUP
      case 'N': push(add(PlainKind::none)); break;
      case 0x88: push(add(PlainKind::boolean, 1)); break;  // NEWTRUE
      case 0x89: push(add(PlainKind::boolean, 0)); break;  // NEWFALSE
      case 'J': push(add(PlainKind::integer, static_cast<int32_t>(static_cast<uint32_t>(read_le(4))))); break;
      case 'K': push(add(PlainKind::integer, read_u8())); break;                            // BININT1
      case 'M': push(add(PlainKind::integer, static_cast<int64_t>(read_le(2)))); break;     // BININT2
      case 0x8a: push_long(read_u8(), at); break;                                           // LONG1
      case 0x8b: push_long(read_le(4), at); break;                                          // LONG4
      case 'G': {  // BINFLOAT: big-endian IEEE double
        const unsigned char* b = take(8);
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = (bits << 8) | b[k];
        push(add(PlainKind::floating, static_cast<int64_t>(bits)));
        break;
      }
      case 'X': push_string(read_le(4), at); break;     // BINUNICODE
      case 0x8c: push_string(read_u8(), at); break;     // SHORT_BINUNICODE
      case 0x8d: push_string(read_le(8), at); break;    // BINUNICODE8
      case ')': push(add(PlainKind::tuple)); break;     // EMPTY_TUPLE
      case 't': push(container(PlainKind::tuple, pop_mark(at))); break;  // TUPLE
      case 0x85: tuple_n(1, at); break;                 // TUPLE1
      case 0x86: tuple_n(2, at); break;                 // TUPLE2
      case 0x87: tuple_n(3, at); break;                 // TUPLE3
      case ']': push(add(PlainKind::list)); break;      // EMPTY_LIST
      case 'l': push(container(PlainKind::list, pop_mark(at))); break;  // LIST
      case '}': push(add(PlainKind::dict)); break;      // EMPTY_DICT
      case 'd': {                                       // DICT
        std::vector<Node> items = pop_mark(at);
        if (items.size() % 2 != 0) fail(at, "DICT with an odd number of values");
        push(container(PlainKind::dict, std::move(items)));
        break;
      }
      case 'a': {  // APPEND
        const Node v = pop(at);
        append(top(at), &v, 1, at);
        break;
      }
      case 'e': {  // APPENDS
        const std::vector<Node> items = pop_mark(at);
        append(top(at), items.data(), items.size(), at);
        break;
      }
      case 's': {  // SETITEM
        const Node value = pop(at);
        const Node key = pop(at);
        const Node pair[2] = {key, value};
        set_items(top(at), pair, 2, at);
        break;
      }
      case 'u': {  // SETITEMS
        const std::vector<Node> items = pop_mark(at);
        set_items(top(at), items.data(), items.size(), at);
        break;
      }
      case 'q': memo_put(read_u8(), at); break;                 // BINPUT
      case 'r': memo_put(read_le(4), at); break;                // LONG_BINPUT
      case 0x94: memo_put(memo_count_, at); break;              // MEMOIZE: index len(memo)
      case 'h': memo_get(read_u8(), at); break;                 // BINGET
      case 'j': memo_get(read_le(4), at); break;                // LONG_BINGET
      case 'c': {                                               // GLOBAL
        std::string module = read_line(at);
        refuse_call(at, "GLOBAL", module + "." + read_line(at));
      }
      case 0x93: refuse_call(at, "STACK_GLOBAL");
      case 'R': refuse_call(at, "REDUCE");
      case 'b': refuse_call(at, "BUILD");
      case 'i': refuse_call(at, "INST");
      case 'o': refuse_call(at, "OBJ");
      case 0x81: refuse_call(at, "NEWOBJ");
      case 0x92: refuse_call(at, "NEWOBJ_EX");
      case 'P': refuse_call(at, "PERSID");
      case 'Q': refuse_call(at, "BINPERSID");
      case 0x82: case 0x83: case 0x84: refuse_call(at, "EXT");
      default: {
        char buf[96];
        if (op >= 0x20 && op < 0x7f) {
          std::snprintf(buf, sizeof buf, "unsupported pickle opcode 0x%02x ('%c')", op, op);
        } else {
          std::snprintf(buf, sizeof buf, "unsupported pickle opcode 0x%02x", op);
        }
        fail(at, buf);
      }
    }
  }

  static constexpr Node kUnset = UINT32_MAX;
  static constexpr uint32_t kOpsPerProgress = 1u << 14;  // a call per 16,384 opcodes: nothing against them

  const unsigned char* p_;
  const unsigned char* begin_;
  const unsigned char* end_;
  const std::function<bool(double)>& progress_;
  PlainPickle out_;
  std::vector<Node> stack_;
  std::vector<size_t> marks_;
  std::vector<Node> memo_;
  uint64_t memo_count_ = 0;  // entries set, as len(memo) in Python
};

PlainPickle PlainPickle::decode(std::string_view data, const std::function<bool(double)>& progress) {
  return PlainDecoder(data, progress).run();
}

}  // namespace stepscope::imports
