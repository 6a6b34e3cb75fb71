#include "attention/attention_memory.h"

namespace stepscope {

int64_t element_bytes(Precision precision) { return precision == Precision::fp32 ? 4 : 2; }

AttentionMemory attention_memory(const AttentionConfig& c) {
  const double e = static_cast<double>(element_bytes(c.precision));
  const double bh = static_cast<double>(c.batch) * static_cast<double>(c.heads);
  const double s = static_cast<double>(c.seq), d = static_cast<double>(c.head_dim);
  const double tensor = bh * s * d * e;  // one of Q, K, V, O, dO, dQ, dK, dV
  const auto bytes = [](double x) { return static_cast<int64_t>(x); };
  AttentionMemory m;
  m.inputs = {"Q, K, V and dO", "4*b*h*s*d*e", bytes(4 * tensor)};
  m.gradients = {"dQ, dK and dV", "3*b*h*s*d*e", bytes(3 * tensor)};
  switch (c.impl) {
    case AttentionImpl::naive:
      // Softmax keeps its output P (b*h*s^2) for the backward pass, the product keeps P and V,
      // and the causal mask is s^2 booleans; the forward briefly holds the scores beside P,
      // the backward dP and dS.
      m.saved = c.causal ? MemoryTerm{"O, P and the causal mask, kept for the backward",
                                      "b*h*s*d*e + b*h*s^2*e + s^2", bytes(tensor + bh * s * s * e + s * s)}
                         : MemoryTerm{"O and P, kept for the backward", "b*h*s*d*e + b*h*s^2*e",
                                      bytes(tensor + bh * s * s * e)};
      m.transient = {"scores in the forward; dP and dS in the backward", "2*b*h*s^2*e", bytes(2 * bh * s * s * e)};
      break;
    case AttentionImpl::sdpa:
    case AttentionImpl::flash:
      // O and the fp32 logsumexp per query; the backward's fp32 dQ accumulator and rowsum.
      m.saved = {"O and the logsumexp, kept for the backward", "b*h*s*d*e + b*h*s*4", bytes(tensor + bh * s * 4)};
      m.transient = {"fp32 dQ accumulator and rowsum(dO*O) in the backward", "b*h*s*d*4 + b*h*s*4",
                     bytes(bh * s * d * 4 + bh * s * 4)};
      break;
  }
  return m;
}

std::string memory_symbols(const AttentionConfig& c) {
  return "b = " + std::to_string(c.batch) + ", h = " + std::to_string(c.heads) + ", s = " + std::to_string(c.seq) +
         ", d = " + std::to_string(c.head_dim) + ", e = " + std::to_string(element_bytes(c.precision)) + " bytes (" +
         to_string(c.precision) + ")";
}

}  // namespace stepscope
