// A std::streambuf over zlib's gzFile, so a trace streams into the JSON parser whether it is
// gzip-compressed or plain (gzread reads a plain file as it is), with the compressed offset for
// progress. Only where zlib is (STEPSCOPE_HAVE_ZLIB).
#pragma once

#include <cstdint>
#include <streambuf>
#include <string>

#include <zlib.h>

namespace stepscope::imports {

class GzBuf : public std::streambuf {
 public:
  explicit GzBuf(gzFile file) : file_(file) {}
  ~GzBuf() override { gzclose(file_); }
  int64_t compressed_offset() const { return gzoffset(file_); }
  std::string error() const {
    int code = 0;
    const char* message = gzerror(file_, &code);
    return code < 0 && message ? message : "";
  }

 protected:
  int_type underflow() override {
    const int n = gzread(file_, buffer_, sizeof buffer_);
    if (n <= 0) return traits_type::eof();
    setg(buffer_, buffer_, buffer_ + n);
    return traits_type::to_int_type(buffer_[0]);
  }

 private:
  gzFile file_;
  char buffer_[1 << 16];
};

}  // namespace stepscope::imports
