// What an input path names, said plainly before a reader misreads it: a folder opens as an empty
// or malformed file, which is not what the user needs to hear.
#pragma once

#include <string>

namespace stepscope {

// "" when `path` is not a folder; else "PATH is a folder, not a WHAT".
std::string folder_instead_of(const std::string& path, const std::string& what);

}  // namespace stepscope
