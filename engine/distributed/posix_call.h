// The one helper for POSIX return codes in engine/distributed/: a failing call becomes an exception
// that names the call, and EINTR is retried where a call may be interrupted.
#pragma once

#include <cerrno>
#include <string>
#include <system_error>

namespace stepscope::distributed {

// Throws std::system_error (a std::runtime_error) whose what() reads "CALL: strerror".
[[noreturn]] inline void throw_posix_error(const std::string& call, int error_number = errno) {
  throw std::system_error(error_number, std::generic_category(), call);
}

// Calls `call()` again while it fails with EINTR; returns its last result (-1 with errno set
// on any other failure).
template <typename Call>
auto retry_on_eintr(Call&& call) -> decltype(call()) {
  decltype(call()) rc;
  do {
    rc = call();
  } while (rc == -1 && errno == EINTR);
  return rc;
}

}  // namespace stepscope::distributed
