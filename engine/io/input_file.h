// Every whole-file read of a user's input (run records, JSON, CSV) goes through here, so that
// no file makes Stepscope read, or allocate, without bound: /dev/zero, a pipe that never ends
// or a gigabyte of garbage is refused by its size, before it is parsed.
// - a regular file is refused by its size before a byte is read (and if it grows past the
//   limit while read);
// - anything else (a device, a FIFO, /dev/fd/N) is read up to the limit and refused beyond it;
// - a folder is said to be a folder.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace stepscope {

class InputFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The largest input read whole: half again the largest run files measured (50,000
// configurations, 79 MB, 0.85 GB resident once open: a parse costs about ten times the text).
inline constexpr uint64_t kMostInputFileBytes = uint64_t{128} << 20;

// The file's bytes; InputFileError naming `path`, what it should be ("a run file") and the limit.
std::string read_input_file(const std::string& path, const std::string& what,
                            uint64_t limit_bytes = kMostInputFileBytes);

// "128 MiB", "1.5 GiB", "12 bytes": sizes in the messages.
std::string input_size_text(uint64_t bytes);

}  // namespace stepscope
