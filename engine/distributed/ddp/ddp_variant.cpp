#include "distributed/ddp/ddp_variant.h"

#include "core/config_error.h"

namespace stepscope::distributed {

std::string to_string(DdpVariant variant) {
  switch (variant) {
    case DdpVariant::naive: return "naive";
    case DdpVariant::flat: return "flat";
    case DdpVariant::overlap: return "overlap";
    case DdpVariant::bucketed: return "bucketed";
  }
  return "naive";
}

std::vector<DdpVariant> all_ddp_variants() {
  return {DdpVariant::naive, DdpVariant::flat, DdpVariant::overlap, DdpVariant::bucketed};
}

DdpVariant parse_ddp_variant(const std::string& text) {
  for (DdpVariant v : all_ddp_variants()) {
    if (text == to_string(v)) return v;
  }
  throw ConfigError("unknown DDP variant '" + text + "' (use naive, flat, overlap or bucketed)", "variant");
}

}  // namespace stepscope::distributed
