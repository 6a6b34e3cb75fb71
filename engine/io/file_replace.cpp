#include "io/file_replace.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace stepscope {

void replace_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::string temporary = path + ".partial";
  const auto fail = [&](const std::string& what) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw FileWriteError(what + ": " + reason);
  };
  {
    std::ofstream file(temporary, std::ios::trunc | std::ios::binary);
    if (!file) fail("cannot write " + temporary);
    try {
      write(file);
    } catch (...) {
      file.close();
      std::remove(temporary.c_str());
      throw;
    }
    file.close();
    if (!file) fail("writing " + temporary + " failed");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) fail("cannot replace " + path);
}

}  // namespace stepscope
