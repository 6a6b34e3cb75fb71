// A strict unpickler for pickles of plain data (dicts, lists, tuples, strings, numbers, None,
// booleans), decoded into a flat, read-only arena: what a PyTorch memory snapshot holds.
//
// Why not io/pickle_reader: that reader builds a tree of shared, 192-byte values with a hash map
// per dict (right for a state_dict's few hundred entries); a snapshot of 1M trace entries (54 MB)
// takes it 7.4 s and 2.1 GB. Here a value is a 16-byte node, a string points into the input and
// a container's items are one vector of node ids: the same snapshot takes 0.5 s and 220 MB.
//
// Strictness, as io/pickle_reader's hooks decide it for a snapshot: nothing may call into
// Python. Every opcode that would (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ,
// NEWOBJ_EX, PERSID, BINPERSID, EXT1/2/4) is refused with a PlainPickleError that says so
// (calls_python() is true); so is every other opcode outside the plain subset, by name.
//
// Bounds: no recursion anywhere (a hostile nesting depth costs nothing); every opcode reads its
// operands through a bounds check, so a truncated file ends in an error at its offset; memo
// indices beyond the input's size are refused (a real pickle numbers them from 0, one per
// opcode). Each input byte makes at most one node (16 bytes), one stack or memo slot (4) and
// one container item (4, 8 with vector growth), and a container's item vector is only made at
// its first item: the arena stays under about 40 bytes per input byte (35 measured for a file
// of one-item lists, the worst case), and a real snapshot's at about 4.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace stepscope::imports {

// The decoding was stopped by its progress callback.
class PlainPickleCancelled : public std::runtime_error {
 public:
  PlainPickleCancelled() : std::runtime_error("cancelled") {}
};

class PlainPickleError : public std::runtime_error {
 public:
  PlainPickleError(const std::string& message, bool calls_python)
      : std::runtime_error(message), calls_python_(calls_python) {}
  // The pickle asks to import or call something: it is not plain data at all.
  bool calls_python() const { return calls_python_; }

 private:
  bool calls_python_;
};

enum class PlainKind : uint8_t { none, boolean, integer, floating, string, tuple, list, dict };

// "int", "str", "list", ...: Python's names, for messages.
const char* python_type_name(PlainKind kind);

class PlainPickle {
 public:
  using Node = uint32_t;

  // Decodes the one pickle at the start of `data` (bytes after its STOP are ignored, as
  // pickle.load does). Strings point into `data`, which must outlive the result.
  // Throws PlainPickleError naming the byte offset and the opcode at fault. `progress` (may be
  // empty) hears the fraction of `data` read every few thousand opcodes; returning false stops
  // the decoding with PlainPickleCancelled.
  static PlainPickle decode(std::string_view data, const std::function<bool(double)>& progress = {});

  Node root() const { return root_; }
  PlainKind kind(Node n) const { return nodes_[n].kind; }
  int64_t integer(Node n) const { return nodes_[n].value; }  // integer and boolean (0/1) nodes
  double floating(Node n) const;
  std::string_view string(Node n) const;

  // A tuple's or list's items; a dict's keys and values, alternating, in insertion order
  // (a key set twice appears twice: the later value wins, as in Python).
  struct Items {
    const Node* begin_ = nullptr;
    const Node* end_ = nullptr;
    const Node* begin() const { return begin_; }
    const Node* end() const { return end_; }
    size_t size() const { return static_cast<size_t>(end_ - begin_); }
  };
  Items items(Node n) const;

 private:
  friend class PlainDecoder;
  static constexpr uint32_t kNoItems = UINT32_MAX;
  struct Cell {
    PlainKind kind = PlainKind::none;
    uint32_t aux = kNoItems;  // string: length; container: index into item_lists_
    int64_t value = 0;        // integer, boolean, float bits, string offset into data_
  };
  static_assert(sizeof(Cell) == 16, "a node is 16 bytes");

  std::string_view data_;
  std::vector<Cell> nodes_;
  std::vector<std::vector<Node>> item_lists_;
  Node root_ = 0;
};

}  // namespace stepscope::imports
