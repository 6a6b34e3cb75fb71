#pragma once
// Emits pickle protocol 2 opcodes into a byte string. Only what torch.save's
// state_dict pickle needs; no memo, so every GLOBAL is written out in full.
#include <cstdint>
#include <string>

namespace stepscope {
namespace pickle {

class PickleWriter {
 public:
  PickleWriter();  // writes PROTO 2

  void global(const std::string& module, const std::string& name);
  void mark();
  void tuple();        // TUPLE: items since the last mark
  void empty_tuple();
  void reduce();
  void setitems();     // SETITEMS: key/value pairs since the last mark
  void binpersid();
  void integer(int64_t v);
  void boolean(bool v);
  void unicode(const std::string& utf8);
  void stop();

  const std::string& bytes() const { return out_; }

 private:
  void op(unsigned char c) { out_.push_back(static_cast<char>(c)); }
  void le(uint64_t v, int n);
  std::string out_;
};

}  // namespace pickle
}  // namespace stepscope
