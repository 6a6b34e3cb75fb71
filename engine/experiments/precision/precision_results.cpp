#include "experiments/precision/precision_results.h"

namespace stepscope::precision {

std::string to_string(AccumulationMethod method) {
  switch (method) {
    case AccumulationMethod::naive: return "naive";
    case AccumulationMethod::kahan: return "kahan";
    case AccumulationMethod::pairwise: return "pairwise";
  }
  return "unknown";
}

std::string to_string(TensorKind kind) {
  switch (kind) {
    case TensorKind::parameter: return "parameter";
    case TensorKind::activation: return "activation";
    case TensorKind::logits: return "logits";
    case TensorKind::loss: return "loss";
    case TensorKind::gradient: return "gradient";
  }
  return "unknown";
}

}  // namespace stepscope::precision
