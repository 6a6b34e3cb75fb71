// Writing a file so that readers never see half of it: the content goes to a temporary beside
// the file, which is then renamed over it. One place for every output file of Stepscope.
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

// Throws FileWriteError naming the file and the system's reason; the temporary is removed,
// also when `write` throws (its exception goes on).
void replace_file(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace stepscope
