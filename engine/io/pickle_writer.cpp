#include "io/pickle_writer.h"

#include <stdexcept>

namespace stepscope {
namespace pickle {

PickleWriter::PickleWriter() {
  op(0x80);  // PROTO
  op(2);
}

void PickleWriter::le(uint64_t v, int n) {
  for (int k = 0; k < n; ++k) out_.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}

void PickleWriter::global(const std::string& module, const std::string& name) {
  if (module.find('\n') != std::string::npos || name.find('\n') != std::string::npos)
    throw std::invalid_argument("pickle GLOBAL names cannot contain newlines");
  op('c');
  out_ += module;
  out_ += '\n';
  out_ += name;
  out_ += '\n';
}

void PickleWriter::mark() { op('('); }
void PickleWriter::tuple() { op('t'); }
void PickleWriter::empty_tuple() { op(')'); }
void PickleWriter::reduce() { op('R'); }
void PickleWriter::setitems() { op('u'); }
void PickleWriter::binpersid() { op('Q'); }
void PickleWriter::stop() { op('.'); }
void PickleWriter::boolean(bool v) { op(v ? 0x88 : 0x89); }

void PickleWriter::integer(int64_t v) {
  if (v >= 0 && v < 0x100) {
    op('K');  // BININT1
    le(static_cast<uint64_t>(v), 1);
  } else if (v >= 0 && v < 0x10000) {
    op('M');  // BININT2
    le(static_cast<uint64_t>(v), 2);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    op('J');  // BININT
    le(static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(v))), 4);
  } else {
    // LONG1: shortest little-endian two's complement that keeps the sign.
    int n = 8;
    while (n > 1) {
      const int64_t shifted = v >> (8 * (n - 1) - 1);  // top byte plus the next sign bit
      if (shifted != 0 && shifted != -1) break;
      --n;
    }
    op(0x8a);
    le(static_cast<uint64_t>(n), 1);
    le(static_cast<uint64_t>(v), n);
  }
}

void PickleWriter::unicode(const std::string& utf8) {
  if (utf8.size() > UINT32_MAX) throw std::length_error("pickle string longer than 4 GiB");
  op('X');  // BINUNICODE
  le(utf8.size(), 4);
  out_ += utf8;
}

}  // namespace pickle
}  // namespace stepscope
