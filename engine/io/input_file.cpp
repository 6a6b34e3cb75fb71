#include "io/input_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace stepscope {

namespace {

// Closes the descriptor on every way out.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) close(fd);
  }
};

std::string too_large(const std::string& path, const std::string& what, const std::string& size, uint64_t limit) {
  return path + " " + size + "; " + what + " is read up to " + input_size_text(limit) +
         " (the largest Stepscope writes, 50,000 configurations, are about 80 MB)";
}

}  // namespace

std::string input_size_text(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < sizeof units / sizeof *units) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, value == static_cast<double>(static_cast<uint64_t>(value)) ? "%.0f %s" : "%.1f %s",
                value, units[unit]);
  return text;
}

std::string read_input_file(const std::string& path, const std::string& what, uint64_t limit_bytes) {
  Descriptor file{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw InputFileError("cannot read " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(file.fd, &st) != 0) throw InputFileError("cannot read " + path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputFileError(path + " is a folder, not " + what);
  const bool regular = S_ISREG(st.st_mode);
  if (regular && static_cast<uint64_t>(st.st_size) > limit_bytes) {
    throw InputFileError(too_large(path, what, "is " + input_size_text(static_cast<uint64_t>(st.st_size)), limit_bytes));
  }
  std::string text;
  if (regular) text.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(file.fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputFileError("cannot read " + path + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    // One byte past the limit is enough to know: a device never ends, a file may have grown.
    if (text.size() + static_cast<size_t>(n) > limit_bytes) {
      throw InputFileError(too_large(path, what, "holds more than " + input_size_text(limit_bytes), limit_bytes));
    }
    text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}

}  // namespace stepscope
