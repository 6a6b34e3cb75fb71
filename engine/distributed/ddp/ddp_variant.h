// The four ways the DDP experiments synchronise gradients (issue 11), by name.
#pragma once

#include <string>
#include <vector>

namespace stepscope::distributed {

enum class DdpVariant {
  naive,     // one all-reduce per gradient after backward
  flat,      // one all-reduce of every gradient flattened, after backward
  overlap,   // one asynchronous all-reduce per gradient, started as backward produces it
  bucketed,  // asynchronous all-reduces of gradient buckets, each started when it is full
};

std::string to_string(DdpVariant variant);
// Throws ConfigError (field "variant") listing the known names.
DdpVariant parse_ddp_variant(const std::string& text);
std::vector<DdpVariant> all_ddp_variants();

}  // namespace stepscope::distributed
