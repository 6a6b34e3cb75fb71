// Bytes from a pipe in, whole lines out; and the last lines of a stream, kept for messages.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace stepscope::distributed {

class LineSplitter {
 public:
  // A line longer than this is handed on in pieces of this size, so a worker that never writes
  // a newline cannot grow the launcher's memory without bound.
  static constexpr size_t kMaxLineBytes = size_t{16} << 20;

  // Calls `emit` with each line the bytes complete, without its '\n'.
  void feed(std::string_view bytes, const std::function<void(const std::string&)>& emit);
  // End of stream: an unterminated last line is emitted as a line.
  void finish(const std::function<void(const std::string&)>& emit);

 private:
  std::string pending_;
};

// The last `capacity` lines of a stream.
class LineTail {
 public:
  explicit LineTail(size_t capacity) : capacity_(capacity) {}
  void push(const std::string& line);
  std::vector<std::string> lines() const { return {lines_.begin(), lines_.end()}; }

 private:
  size_t capacity_;
  std::deque<std::string> lines_;
};

}  // namespace stepscope::distributed
