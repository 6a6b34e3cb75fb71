// A TCP port nobody listens on, for a local rendezvous (torchrun --standalone does the same).
#pragma once

#include <string>

namespace stepscope::distributed {

// Binds port 0 on `address` (an IPv4 literal, 127.0.0.1 by default), reads the port the kernel
// chose and closes the socket. Another process may take the port before the rendezvous binds
// it; the window is small. Throws std::system_error naming the failing call, ConfigError
// ("master_addr") for an address that is not an IPv4 literal.
int find_free_port(const std::string& address = "127.0.0.1");

}  // namespace stepscope::distributed
