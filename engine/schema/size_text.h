// Sizes as people type them: "4096", "512KB", "1MB", "1GB" (powers of 10), "1KiB", "1MiB",
// "1GiB" (powers of 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace stepscope {

// None for anything else, zero, or more than 2^50 bytes.
std::optional<int64_t> parse_size_bytes(const std::string& text);

}  // namespace stepscope
