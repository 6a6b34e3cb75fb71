#include "experiments/ddp/ddp_types.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/config_error.h"
#include "core/device.h"
#include "distributed/launch_env.h"
#include "runners/memory_estimate.h"

namespace stepscope {

int64_t ddp_memory_bytes(const DdpConfig& c) {
  BenchConfig step;
  step.model = with_context(c.model, c.context);
  step.context = c.context;
  step.batch = c.batch;
  step.precision = c.precision;
  step.mode = StepMode::train;
  step.engine = c.engine;
  step.device = c.device;
  const MemoryEstimate e = estimate_memory(step);
  double bytes = static_cast<double>(e.peak_bytes);
  if (c.variant == distributed::DdpVariant::flat || c.variant == distributed::DdpVariant::bucketed) {
    // The flattened gradients; in bf16 half as many bytes, beside autograd's (kept for the cast back).
    bytes += static_cast<double>(e.gradient_bytes) * (c.reduce_dtype == Precision::bf16 ? 0.5 : 1.0);
  }
  if (c.check) {
    step.batch = c.batch * c.ranks;
    bytes += static_cast<double>(e.weight_bytes) + static_cast<double>(estimate_memory(step).peak_bytes);
  }
  return bytes >= 9.2e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(bytes);
}

void validate(const DdpConfig& c) {
  if (c.variant == distributed::DdpVariant::bucketed && !(c.bucket_mb > 0 && c.bucket_mb <= 1 << 20)) {
    throw ConfigError("bucket size must be above 0 and at most 1048576 MiB", "bucket-mb");
  }
  if (c.ranks < 1 || c.ranks > distributed::kMaxRanks) {
    throw ConfigError("ranks must be between 1 and " + std::to_string(distributed::kMaxRanks), "nproc");
  }
  if (c.ranks_on_host < 1 || c.ranks_on_host > c.ranks) {
    throw ConfigError("ranks on this machine must be between 1 and the job's " + std::to_string(c.ranks), "nproc");
  }
  // fp16 would need a loss scale every rank agrees on; bf16 runs under autocast like bench.
  if (c.precision == Precision::fp16) {
    throw ConfigError("the DDP experiments run fp32 or bf16 (autocast), not fp16", "precision");
  }
  if (c.reduce_dtype == Precision::fp16) {
    throw ConfigError("gradients are reduced in fp32 or bf16 (fp16 sums would need a loss scale)", "reduce-dtype");
  }
  if (c.sm_carveout < 0 || c.sm_carveout > kMaxSmCarveout) {
    throw ConfigError("SM carve-out must be between 0 and " + std::to_string(kMaxSmCarveout), "sm-carveout");
  }
  if (c.sm_carveout > 0 && c.device.is_cpu()) {
    throw ConfigError("an SM carve-out shapes GPU matmuls: leave it 0 on the CPU", "sm-carveout");
  }
  if (c.context < 1) throw ConfigError("context must be positive", "context");
  if (c.batch < 1) throw ConfigError("batch per rank must be positive", "batch");
  if (c.batch > kMaxDimension) {
    throw ConfigError("batch size " + std::to_string(c.batch) + " is too large (at most " + std::to_string(kMaxDimension) +
                          ")",
                      "batch");
  }
  if (c.warmup_steps < 0) throw ConfigError("warm-up steps cannot be negative", "warmup");
  if (c.measured_steps < 1) throw ConfigError("measured steps must be at least 1", "steps");
  const bool on_gpu = c.device.is_cuda();
  if (c.backend == CommBackend::nccl && !on_gpu) {
    throw ConfigError("nccl runs on GPUs: use --device cuda (or --backend gloo on the CPU)", "backend");
  }
  if (c.backend == CommBackend::gloo && on_gpu) {
    throw ConfigError("gloo runs here on CPU tensors: use --device cpu (or --backend nccl on GPUs)", "backend");
  }
  try {
    validate(with_context(c.model, c.context));
  } catch (const ConfigError& e) {
    throw ConfigError(e.what(), e.field().empty() ? "model" : e.field());
  }
}

std::string to_string(DdpMemoryPoint point) {
  switch (point) {
    case DdpMemoryPoint::after_init: return "after_init";
    case DdpMemoryPoint::before_optimizer_step: return "before_optimizer_step";
    case DdpMemoryPoint::after_optimizer_step: return "after_optimizer_step";
  }
  return "after_init";
}

DdpMemoryPoint parse_ddp_memory_point(const std::string& text) {
  for (DdpMemoryPoint p : kDdpMemoryPoints) {
    if (text == to_string(p)) return p;
  }
  throw ConfigError("unknown memory point '" + text + "'", "point");
}

std::optional<double> check_tolerance(const DdpConfig& c) {
  if (c.precision == Precision::fp32 && c.reduce_dtype == Precision::fp32 && c.device.is_cpu()) return 1e-5;
  return std::nullopt;
}

int64_t bucket_bytes(const DdpConfig& c) {
  return std::max<int64_t>(1, std::llround(c.bucket_mb * double(1 << 20)));
}

std::string describe(const DdpConfig& c) {
  std::ostringstream s;
  s << distributed::to_string(c.variant);
  if (c.variant == distributed::DdpVariant::bucketed) s << ' ' << c.bucket_mb << " MiB";
  if (c.optimizer != distributed::OptimizerSharding::none) s << ' ' << distributed::to_string(c.optimizer);
  if (c.optimizer == distributed::OptimizerSharding::zero1 && c.zero1_gathers == distributed::Zero1Gathers::next_forward) {
    s << " (gathers in the next forward)";
  }
  s << ' ' << to_string(c.backend) << " x" << c.ranks << ' ' << c.model.name << " ctx " << c.context << " b "
    << c.batch << ' ' << to_string(c.precision);
  if (c.engine != EngineKind::eager) s << ' ' << to_string(c.engine);
  if (c.reduce_dtype != Precision::fp32) s << ' ' << to_string(c.reduce_dtype) << " reduce";
  if (c.sm_carveout > 0) s << ", matmuls leave " << c.sm_carveout << " SMs";
  return s.str();
}

std::vector<DdpConfig> expand(const DdpSweepSpec& spec, int ranks) {
  std::vector<DdpConfig> out;
  // Each configuration once per engine, next to each other.
  const auto add_engines = [&](DdpConfig c) {
    for (EngineKind engine : spec.engines) {
      c.engine = engine;
      out.push_back(c);
    }
  };
  const auto add_variants = [&](DdpConfig c) {
    for (distributed::DdpVariant variant : spec.variants) {
      c.variant = variant;
      c.ranks = ranks;
      if (variant != distributed::DdpVariant::bucketed) {
        add_engines(c);
        continue;
      }
      for (double mb : spec.bucket_mbs) {
        c.bucket_mb = mb;
        add_engines(c);
      }
    }
  };
  for (distributed::OptimizerSharding optimizer : spec.optimizers) {
    DdpConfig c = spec.base;
    c.optimizer = optimizer;
    if (optimizer != distributed::OptimizerSharding::zero1) {
      add_variants(c);
      continue;
    }
    for (distributed::Zero1Gathers gathers : spec.zero1_gathers) {
      c.zero1_gathers = gathers;
      add_variants(c);
    }
  }
  return out;
}

}  // namespace stepscope
