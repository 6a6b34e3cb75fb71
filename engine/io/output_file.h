// Every file Stepscope writes goes through here, so that an output path means what the user
// means by it:
// - "-" is standard output;
// - an existing file that is not a regular one (/dev/null, a FIFO, /dev/fd/N, a terminal) is
//   written through, in place;
// - a regular file, or a symbolic link to one, is replaced whole: the content goes to a
//   temporary beside the file the link names, renamed over it, so readers never see half of
//   it and the link stays a link;
// - a new path is created the same way.
// Refused with a FileWriteError naming the path and the reason: a directory, a regular file
// that is read-only (also for root, who could write it anyway), a path whose folder is missing
// or cannot be written.
#pragma once

#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>

namespace stepscope {

class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `path` as above; a temporary is removed also when `write` throws (its exception goes on).
void replace_file(const std::string& path, const std::function<void(std::ostream&)>& write);

// Checks, before anything runs, that `path` could be written as above; writes nothing.
void check_output_path(const std::string& path);

// True for a regular file or a new path, which can be rewritten after every result; false for
// "-", devices and pipes, which take what is written once (a pipe's reader sees one table).
bool is_rewritable_output(const std::string& path);

// True when `a` and `b` name the same output: the same file (through ./, .., a symbolic link
// or a hard link), a new file by the same absolute name, or both standard output.
bool same_output(const std::string& a, const std::string& b);

}  // namespace stepscope
