#include "experiments/ddp/ddp_types.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace stepscope {

void validate(const DdpConfig& c) {
  if (c.variant == dist::DdpVariant::bucketed && !(c.bucket_mb > 0 && c.bucket_mb <= 1 << 20)) {
    throw ConfigError("bucket size must be above 0 and at most 1048576 MiB", "bucket-mb");
  }
  if (c.ranks < 1 || c.ranks > 4096) throw ConfigError("ranks must be between 1 and 4096", "nproc");
  if (c.precision != Precision::fp32) {
    throw ConfigError("the DDP experiments run fp32 only for now (got " + to_string(c.precision) + ")", "precision");
  }
  if (c.context < 1) throw ConfigError("context must be positive", "context");
  if (c.batch < 1) throw ConfigError("batch per rank must be positive", "batch");
  if (c.warmup_steps < 0) throw ConfigError("warm-up steps cannot be negative", "warmup");
  if (c.measured_steps < 1) throw ConfigError("measured steps must be at least 1", "steps");
  if (c.device != "cpu") throw ConfigError("the DDP experiments run on the CPU with Gloo for now (use --device cpu)", "device");
  if (c.backend != CommBackend::gloo) {
    throw ConfigError("the DDP experiments run with gloo for now (nccl comes with GPU support)", "backend");
  }
  try {
    validate(with_context(c.model, c.context));
  } catch (const ConfigError& e) {
    throw ConfigError(e.what(), e.field().empty() ? "model" : e.field());
  }
}

int64_t bucket_bytes(const DdpConfig& c) {
  return std::max<int64_t>(1, std::llround(c.bucket_mb * double(1 << 20)));
}

std::string describe(const DdpConfig& c) {
  std::ostringstream s;
  s << dist::to_string(c.variant);
  if (c.variant == dist::DdpVariant::bucketed) s << ' ' << c.bucket_mb << " MiB";
  s << ' ' << to_string(c.backend) << " x" << c.ranks << ' ' << c.model.name << " ctx " << c.context << " b "
    << c.batch << ' ' << to_string(c.precision);
  return s.str();
}

std::vector<DdpConfig> expand(const DdpSweepSpec& spec, int ranks) {
  std::vector<DdpConfig> out;
  for (dist::DdpVariant variant : spec.variants) {
    DdpConfig c = spec.base;
    c.variant = variant;
    c.ranks = ranks;
    if (variant != dist::DdpVariant::bucketed) {
      out.push_back(c);
      continue;
    }
    for (double mb : spec.bucket_mbs) {
      c.bucket_mb = mb;
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace stepscope
