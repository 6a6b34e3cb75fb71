// Memory snapshots written in the test, opcode by opcode as Python's pickler writes plain data
// (keys and frame stacks memoized once and fetched again), for the importer's tests on
// hand-computed cases and on a million entries.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace stepscope::testing {

// Pickle opcodes for plain data, as Python's pickler writes them: keys and frame stacks are
// memoized once and fetched again, like the repeated strings and frame lists of a real snapshot.
class PickleBytes {
 public:
  PickleBytes() { out_ += "\x80\x02"; }
  PickleBytes& dict() { return op("}(", 2); }    // EMPTY_DICT MARK; then key, value, ...; end()
  PickleBytes& end_dict() { return op("u", 1); }  // SETITEMS
  PickleBytes& list() { return op("](", 2); }    // EMPTY_LIST MARK; then items; end_list()
  PickleBytes& end_list() { return op("e", 1); }  // APPENDS
  PickleBytes& str(const std::string& s) {
    out_ += 'X';
    le(s.size(), 4);
    out_ += s;
    return *this;
  }
  PickleBytes& key(const std::string& k) {  // a memoized string
    auto it = memo_.find(k);
    if (it != memo_.end()) return get(it->second);
    str(k);
    return put(k);
  }
  PickleBytes& integer(int64_t v) {
    out_ += '\x8a';  // LONG1, 8 bytes
    out_ += '\x08';
    le(static_cast<uint64_t>(v), 8);
    return *this;
  }
  PickleBytes& none() { return op("N", 1); }
  PickleBytes& field(const std::string& k, int64_t v) { return key(k).integer(v); }
  PickleBytes& field(const std::string& k, const std::string& v) { return key(k).key(v); }
  // A frames list, memoized under `name` after its first use.
  PickleBytes& frames(const std::string& name, const std::vector<std::tuple<std::string, std::string, int>>& frames) {
    auto it = memo_.find("frames:" + name);
    if (it != memo_.end()) return get(it->second);
    list();
    for (const auto& [function, file, line] : frames) {
      dict().field("name", function).field("filename", file).field("line", line).end_dict();
    }
    end_list();
    return put("frames:" + name);
  }
  std::string done() { return out_ + "."; }
  std::string& raw() { return out_; }

 private:
  PickleBytes& op(const char* bytes, size_t n) {
    out_.append(bytes, n);
    return *this;
  }
  void le(uint64_t v, int n) {
    for (int k = 0; k < n; ++k) out_ += static_cast<char>((v >> (8 * k)) & 0xff);
  }
  PickleBytes& put(const std::string& name) {
    const uint64_t index = memo_.size();
    memo_[name] = index;
    out_ += 'r';  // LONG_BINPUT
    le(index, 4);
    return *this;
  }
  PickleBytes& get(uint64_t index) {
    out_ += 'j';  // LONG_BINGET
    le(index, 4);
    return *this;
  }
  std::string out_;
  std::map<std::string, uint64_t> memo_;
};

struct Block {
  int64_t size, requested;
  const char* state;
};

inline void segment(PickleBytes& p, uint64_t address, const std::vector<Block>& blocks) {
  int64_t total = 0, allocated = 0;
  for (const Block& b : blocks) {
    total += b.size;
    if (std::string(b.state) == "active_allocated") allocated += b.size;
  }
  p.dict().field("device", 0).field("address", static_cast<int64_t>(address)).field("total_size", total);
  p.field("allocated_size", allocated).field("active_size", allocated).field("stream", 0);
  p.field("segment_type", "large").key("blocks").list();
  uint64_t at = address;
  for (const Block& b : blocks) {
    p.dict().field("address", static_cast<int64_t>(at)).field("size", b.size).field("requested_size", b.requested);
    p.field("state", b.state).key("frames").list().end_list().end_dict();
    at += static_cast<uint64_t>(b.size);
  }
  p.end_list().end_dict();
}

inline void entry(PickleBytes& p, const char* action, uint64_t address, int64_t size, int64_t time_us) {
  p.dict().field("action", action).field("addr", static_cast<int64_t>(address)).field("size", size);
  p.field("stream", 0).field("time_us", time_us).key("frames");
  p.frames("user", {{"forward", "/home/me/model.py", 12},
                    {"_call_impl", "/x/site-packages/torch/nn/modules/module.py", 1790}});
  p.end_dict();
}

}  // namespace stepscope::testing
