#include "io/output_file.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include <sys/stat.h>
#include <unistd.h>

namespace stepscope {

namespace {

[[noreturn]] void fail(const std::string& what, int error) { throw FileWriteError(what + ": " + std::strerror(error)); }

std::string folder_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The file a path names, links and ./.. resolved; for a new file, its resolved folder and name.
std::string absolute(const std::string& path) {
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved)) return resolved;
  if (realpath(folder_of(path).c_str(), resolved)) {
    const size_t slash = path.find_last_of('/');
    return std::string(resolved) + "/" + (slash == std::string::npos ? path : path.substr(slash + 1));
  }
  return path;
}

void require_writable_folder(const std::string& folder, const std::string& path) {
  struct stat st {};
  if (stat(folder.c_str(), &st) != 0) fail("cannot write " + path + " (folder " + folder + ")", errno);
  if (!S_ISDIR(st.st_mode)) throw FileWriteError("cannot write " + path + ": " + folder + " is not a folder");
  if (access(folder.c_str(), W_OK | X_OK) != 0) fail("cannot write " + path + " (folder " + folder + ")", errno);
}

enum class Target { standard_output, in_place, replaced };

// What writing `path` means, refusing what cannot be written; `file` is what gets replaced.
Target classify(const std::string& path, std::string& file) {
  if (path == "-") return Target::standard_output;
  if (path.empty()) throw FileWriteError("an output path cannot be empty");
  if (path.back() == '/') throw FileWriteError(path + " names a folder, not a file");
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {  // follows links
    if (S_ISDIR(st.st_mode)) throw FileWriteError(path + " is a folder, not a file");
    if (!S_ISREG(st.st_mode)) {
      if (access(path.c_str(), W_OK) != 0) fail("cannot write " + path, errno);
      return Target::in_place;
    }
    // Root may write anything; a file marked read-only is still not to be overwritten.
    const bool writable = geteuid() == 0 ? (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) != 0
                                         : access(path.c_str(), W_OK) == 0;
    if (!writable) throw FileWriteError("cannot write " + path + ": the file is read-only");
    file = absolute(path);
    require_writable_folder(folder_of(file), path);
    return Target::replaced;
  }
  if (errno != ENOENT) fail("cannot write " + path, errno);
  struct stat link {};
  if (lstat(path.c_str(), &link) == 0) {
    throw FileWriteError("cannot write " + path + ": it is a symbolic link to a file that does not exist");
  }
  require_writable_folder(folder_of(path), path);
  file = path;
  return Target::replaced;
}

void write_in_place(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ofstream out(path, std::ios::binary | std::ios::out);
  if (!out) fail("cannot write " + path, errno);
  write(out);
  out.close();  // a device that is full fails here, when the buffer goes out
  if (!out) fail("writing " + path + " failed", errno ? errno : EIO);
}

// The process's file creation mask, read without changing it (umask(2) would, for every thread).
mode_t creation_mask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  }
  return 022;
}

// A new, uniquely named file beside `file`: two processes writing one output at once each have
// their own, and the last rename wins whole. It gets the mode `file` has, or a new file's.
std::string make_temporary(const std::string& file) {
  std::string name = file + ".XXXXXX.partial";
  const int fd = mkstemps(name.data(), static_cast<int>(std::strlen(".partial")));
  if (fd < 0) fail("cannot write a temporary beside " + file, errno);
  struct stat st {};
  const mode_t mode = stat(file.c_str(), &st) == 0 ? (st.st_mode & 07777) : (0666 & ~creation_mask());
  const bool moded = fchmod(fd, mode) == 0;
  const int error = errno;
  close(fd);
  if (!moded) {
    std::remove(name.c_str());
    fail("cannot write " + name, error);
  }
  return name;
}

void write_through_temporary(const std::string& file, const std::function<void(std::ostream&)>& write) {
  const std::string temporary = make_temporary(file);
  const auto give_up = [&](const std::string& what) {
    const int error = errno ? errno : EIO;
    std::remove(temporary.c_str());
    fail(what, error);
  };
  {
    std::ofstream out(temporary, std::ios::trunc | std::ios::binary);
    if (!out) give_up("cannot write " + temporary);
    try {
      write(out);
    } catch (...) {
      out.close();
      std::remove(temporary.c_str());
      throw;
    }
    out.close();
    if (!out) give_up("writing " + temporary + " failed");
  }
  if (std::rename(temporary.c_str(), file.c_str()) != 0) give_up("cannot replace " + file);
}

}  // namespace

void replace_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  errno = 0;
  std::string file;
  switch (classify(path, file)) {
    case Target::standard_output:
      write(std::cout);
      std::cout.flush();
      if (!std::cout) throw FileWriteError("writing to standard output failed");
      return;
    case Target::in_place:
      write_in_place(path, write);
      return;
    case Target::replaced:
      write_through_temporary(file, write);
      return;
  }
}

void check_output_path(const std::string& path) {
  std::string ignored;
  classify(path, ignored);
}

bool is_rewritable_output(const std::string& path) {
  if (path == "-") return false;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return errno == ENOENT;
  return S_ISREG(st.st_mode);
}

bool same_output(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return a == b;
  struct stat sa {}, sb {};
  if (stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  return absolute(a) == absolute(b);
}

}  // namespace stepscope
