// The LM head and the mean cross-entropy fused: logits are made a chunk of rows at a time, and
// one kernel per chunk takes each row's online log-sum-exp, its loss and, when a gradient is
// needed, overwrites the logits with d loss / d logits (softmax - one-hot) / rows, from which
// the chunk's dx and its share of dW follow at once (Liger-Kernel's scheme). The full
// rows x vocab fp32 logits never exist; backward only scales what the forward computed.
#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>

namespace stepscope::fused {

// x: [rows, d] in the compute dtype; weight: [vocab, d] the fp32 master (gets the gradient);
// compute_weight: the same values in x's dtype (the master itself in fp32); targets: [rows]
// int64. Returns the mean loss, an fp32 scalar. Differentiable in x and weight.
// chunk_rows <= 0 picks chunks whose logits take at most ~256 MiB.
// Targets outside [0, vocab) make the loss (and the gradients) NaN; they are never read on the
// host, so the call queues GPU work without waiting and can be captured in a CUDA graph. The
// gradients are computed in the forward and handed over by the backward, which can therefore run
// once per forward (a second, after retain_graph, throws).
at::Tensor linear_cross_entropy(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& compute_weight,
                                const at::Tensor& targets, int64_t chunk_rows = 0);

// The rows per chunk that chunk_rows <= 0 picks: equal chunks, as few as keep each chunk's
// logits (rows x vocab x element_bytes) within 256 MiB.
int64_t linear_cross_entropy_chunk_rows(int64_t rows, int64_t vocab, int64_t element_bytes);

// The row kernel on its own (kernel on a GPU, reference on the CPU): logits [rows, vocab]
// (fp32, bf16 or fp16), targets [rows]; writes each row's loss (lse - logit[target]) into
// losses [rows] fp32 and, when grad_scale != 0, replaces logits in place with
// (softmax - one_hot) * grad_scale.
void cross_entropy_rows(at::Tensor& logits, const at::Tensor& targets, at::Tensor& losses, double grad_scale);
void cross_entropy_rows_reference(at::Tensor& logits, const at::Tensor& targets, at::Tensor& losses, double grad_scale);

}  // namespace stepscope::fused
