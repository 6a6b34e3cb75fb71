#include "attention/attention_memory.h"

namespace stepscope {

int64_t element_bytes(Precision precision) { return precision == Precision::fp32 ? 4 : 2; }

AttentionMemory attention_memory(const AttentionConfig& c) {
  const double e = static_cast<double>(element_bytes(c.precision));
  const double bh = static_cast<double>(c.batch) * static_cast<double>(c.heads);
  const double s = static_cast<double>(c.seq), d = static_cast<double>(c.head_dim);
  const double tensor = bh * s * d * e;  // one of Q, K, V, O, dO, dQ, dK, dV
  AttentionMemory m;
  m.inputs_bytes = static_cast<int64_t>(4 * tensor);
  double saved = 0, transient = 0;
  switch (c.impl) {
    case AttentionImpl::naive:
      // Softmax keeps its output P (b*h*s^2) for the backward pass, the product keeps P and V,
      // and the causal mask is s^2 booleans; the forward briefly holds the scores beside P,
      // the backward dP and dS.
      saved = tensor + bh * s * s * e + (c.causal ? s * s : 0);
      transient = 2 * bh * s * s * e;
      m.saved_formula = c.causal ? "O + P + mask = b*h*s*d*e + b*h*s^2*e + s^2" : "O + P = b*h*s*d*e + b*h*s^2*e";
      break;
    case AttentionImpl::sdpa:
    case AttentionImpl::flash:
      // O and the fp32 logsumexp per query; the backward's fp32 dQ accumulator and rowsum.
      saved = tensor + bh * s * 4;
      transient = bh * s * d * 4 + bh * s * 4;
      m.saved_formula = "O + logsumexp = b*h*s*d*e + b*h*s*4";
      break;
  }
  m.saved_for_backward_bytes = static_cast<int64_t>(saved);
  // Inputs, what is saved, the gradients (three tensors) and the transient buffers.
  m.peak_bytes = static_cast<int64_t>(4 * tensor + saved + 3 * tensor + transient);
  return m;
}

}  // namespace stepscope
