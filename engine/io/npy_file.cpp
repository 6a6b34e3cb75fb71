#include "io/npy_file.h"

#include "io/input_path.h"
#include "io/output_file.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include <ATen/ATen.h>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy I/O assumes a little-endian host");

namespace stepscope {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr uint32_t kMaxHeaderLen = 1u << 20;  // far above any real header; bounds the allocation

struct DtypeName {
  at::ScalarType dtype;
  const char* descr;
};
constexpr DtypeName kDtypes[] = {
    {at::kLong, "<i8"}, {at::kInt, "<i4"},  {at::kShort, "<i2"},  {at::kChar, "|i1"}, {at::kByte, "|u1"},
    {at::kBool, "|b1"}, {at::kHalf, "<f2"}, {at::kFloat, "<f4"},  {at::kDouble, "<f8"},
};

at::ScalarType dtype_for_descr(const std::string& d) {
  std::string norm = d;
  // Single-byte types have no byte order; numpy writes '|' but '<' and '=' are equivalent.
  if (norm.size() == 3 && (norm[0] == '<' || norm[0] == '=') && norm[2] == '1') norm[0] = '|';
  if (norm.size() == 3 && norm[0] == '=') norm[0] = '<';
  for (const auto& e : kDtypes)
    if (norm == e.descr) return e.dtype;
  if (!d.empty() && d[0] == '>') throw NpyError("big-endian dtype '" + d + "' is not supported");
  if (d.find('O') != std::string::npos) throw NpyError("object arrays are not supported");
  throw NpyError("unsupported dtype '" + d + "'");
}

// Parser for the header: a Python dict literal with 'descr', 'fortran_order' and 'shape'.
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& s) : s_(s) {}

  void parse(std::string& descr, bool& fortran, std::vector<int64_t>& shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    expect('{');
    while (true) {
      ws();
      if (peek() == '}') break;
      const std::string key = quoted();
      expect(':');
      ws();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"') throw NpyError("structured dtypes are not supported");
        descr = quoted();
        have_descr = true;
      } else if (key == "fortran_order") {
        fortran = boolean();
        have_fortran = true;
      } else if (key == "shape") {
        shape = int_tuple();
        have_shape = true;
      } else {
        throw NpyError("unexpected header key '" + key + "'");
      }
      ws();
      if (peek() == ',') ++i_;
      else if (peek() != '}') throw NpyError("malformed header");
    }
    if (!have_descr || !have_fortran || !have_shape) throw NpyError("header lacks descr, fortran_order or shape");
  }

 private:
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void expect(char c) {
    ws();
    if (peek() != c) throw NpyError(std::string("malformed header: expected '") + c + "'");
    ++i_;
  }
  std::string quoted() {
    ws();
    const char q = peek();
    if (q != '\'' && q != '"') throw NpyError("malformed header: expected a string");
    const size_t end = s_.find(q, i_ + 1);
    if (end == std::string::npos) throw NpyError("malformed header: unterminated string");
    std::string r = s_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    return r;
  }
  bool boolean() {
    if (s_.compare(i_, 4, "True") == 0) { i_ += 4; return true; }
    if (s_.compare(i_, 5, "False") == 0) { i_ += 5; return false; }
    throw NpyError("malformed header: fortran_order is not True/False");
  }
  std::vector<int64_t> int_tuple() {
    std::vector<int64_t> r;
    expect('(');
    while (true) {
      ws();
      if (peek() == ')') { ++i_; return r; }
      if (!std::isdigit(static_cast<unsigned char>(peek()))) throw NpyError("malformed header: bad shape");
      int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, peek() - '0', &v))
          throw NpyError("shape dimension too large");
        ++i_;
      }
      while (peek() == 'L') ++i_;  // Python 2 longs
      r.push_back(v);
      ws();
      if (peek() == ',') ++i_;
      else if (peek() != ')') throw NpyError("malformed header: bad shape");
    }
  }

  const std::string& s_;
  size_t i_ = 0;
};

at::Tensor read_impl(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw NpyError("cannot open file (" + std::string(std::strerror(errno)) + ")");
  f.seekg(0, std::ios::end);
  const uint64_t file_size = static_cast<uint64_t>(f.tellg());
  f.seekg(0);
  unsigned char pre[kMagicLen + 2];
  if (!f.read(reinterpret_cast<char*>(pre), sizeof pre) || std::memcmp(pre, kMagic, kMagicLen) != 0)
    throw NpyError("not a .npy file (bad magic)");
  const unsigned major = pre[kMagicLen];
  if (major < 1 || major > 3) throw NpyError("unsupported .npy format version " + std::to_string(major));
  unsigned char lenbuf[4] = {};
  const int lensize = major == 1 ? 2 : 4;
  if (!f.read(reinterpret_cast<char*>(lenbuf), lensize)) throw NpyError("truncated header");
  const uint32_t hlen = lenbuf[0] | lenbuf[1] << 8 | static_cast<uint32_t>(lenbuf[2]) << 16 |
                        static_cast<uint32_t>(lenbuf[3]) << 24;
  if (hlen > kMaxHeaderLen) throw NpyError("header length " + std::to_string(hlen) + " is invalid");
  if (hlen > file_size) throw NpyError("truncated header");
  std::string header(hlen, '\0');
  if (!f.read(&header[0], hlen)) throw NpyError("truncated header");

  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  HeaderParser(header).parse(descr, fortran, shape);
  const at::ScalarType dtype = dtype_for_descr(descr);

  int64_t numel = 1, nbytes = 0;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(numel, d, &numel)) throw NpyError("shape too large");
  if (__builtin_mul_overflow(numel, static_cast<int64_t>(c10::elementSize(dtype)), &nbytes))
    throw NpyError("shape too large");
  const uint64_t data_start = kMagicLen + 2 + lensize + hlen;
  if (file_size - data_start < static_cast<uint64_t>(nbytes))
    throw NpyError("truncated data: expected " + std::to_string(nbytes) + " bytes, file has " +
                   std::to_string(file_size - data_start));

  // Fortran order is C order of the reversed shape; transpose back afterwards.
  std::vector<int64_t> stored(shape);
  if (fortran) stored.assign(shape.rbegin(), shape.rend());
  at::Tensor t = at::empty(stored, at::TensorOptions().dtype(dtype == at::kBool ? at::kByte : dtype));
  if (nbytes > 0 && !f.read(static_cast<char*>(t.data_ptr()), nbytes)) throw NpyError("truncated data");
  if (dtype == at::kBool) t = t.ne(0);  // numpy bools are bytes; any nonzero byte is True
  if (fortran && t.dim() > 1) {
    std::vector<int64_t> perm(static_cast<size_t>(t.dim()));
    for (size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<int64_t>(perm.size() - 1 - k);
    t = t.permute(perm).contiguous();
  }
  return t;
}

std::string shape_repr(at::IntArrayRef sizes) {
  std::string s = "(";
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (k) s += ", ";
    s += std::to_string(sizes[k]);
  }
  if (sizes.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

at::Tensor read_npy_file(const std::string& path) {
  if (const auto folder = folder_instead_of(path, "a .npy file"); !folder.empty()) throw NpyError(folder);
  try {
    return read_impl(path);
  } catch (const NpyError& e) {
    throw NpyError(path + ": " + e.what());
  } catch (const std::bad_alloc&) {
    throw NpyError(path + ": out of memory");
  }
}

void write_npy_file(const at::Tensor& tensor, const std::string& path) {
  if (!tensor.defined()) throw NpyError(path + ": cannot write an undefined tensor");
  const char* descr = nullptr;
  for (const auto& e : kDtypes)
    if (e.dtype == tensor.scalar_type()) descr = e.descr;
  if (!descr)
    throw NpyError(path + ": dtype " + std::string(c10::toString(tensor.scalar_type())) + " has no .npy equivalent here");
  const at::Tensor t = tensor.to(at::kCPU).contiguous();

  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " +
                       shape_repr(t.sizes()) + ", }";
  // Pad with spaces so the data starts 64-byte aligned, as numpy does.
  int version = 1;
  size_t prefix = kMagicLen + 2 + 2;
  if (((prefix + header.size() + 1 + 63) / 64) * 64 - prefix > 0xffff) {
    version = 2;
    prefix = kMagicLen + 2 + 4;
  }
  const size_t total = ((prefix + header.size() + 1 + 63) / 64) * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header.push_back('\n');

  // Whole or not at all: a full disk leaves the old file (or none), not a truncated array.
  try {
    replace_file(path, [&](std::ostream& f) {
      f.write(kMagic, kMagicLen);
      const char ver[2] = {static_cast<char>(version), 0};
      f.write(ver, 2);
      const uint32_t hlen = static_cast<uint32_t>(header.size());
      const char len[4] = {static_cast<char>(hlen & 0xff), static_cast<char>((hlen >> 8) & 0xff),
                           static_cast<char>((hlen >> 16) & 0xff), static_cast<char>((hlen >> 24) & 0xff)};
      f.write(len, version == 1 ? 2 : 4);
      f.write(header.data(), static_cast<std::streamsize>(header.size()));
      if (t.numel() > 0) f.write(static_cast<const char*>(t.data_ptr()), static_cast<std::streamsize>(t.nbytes()));
    });
  } catch (const FileWriteError& e) {
    throw NpyError(e.what());
  }
}

}  // namespace stepscope
