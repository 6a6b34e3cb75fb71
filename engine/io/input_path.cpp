#include "io/input_path.h"

#include <sys/stat.h>

namespace stepscope {

std::string folder_instead_of(const std::string& path, const std::string& what) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return path + " is a folder, not " + what;
  return "";
}

}  // namespace stepscope
