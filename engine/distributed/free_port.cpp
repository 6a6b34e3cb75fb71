#include "distributed/free_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "distributed/posix_call.h"
#include "core/config_error.h"

namespace stepscope::distributed {

int find_free_port(const std::string& address) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  if (inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1) {
    throw ConfigError("master address \"" + address + "\" is not an IPv4 address such as 127.0.0.1",
                      "master_addr");
  }
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw_posix_error("socket");
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    throw_posix_error("bind(" + address + ":0)");
  }
  sockaddr_in bound{};
  socklen_t length = sizeof bound;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0) throw_posix_error("getsockname");
  return ntohs(bound.sin_port);
}

}  // namespace stepscope::distributed
