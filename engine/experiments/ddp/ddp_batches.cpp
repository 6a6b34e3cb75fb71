#include "experiments/ddp/ddp_batches.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

namespace stepscope {

DdpBatch global_batch(const DdpConfig& c, int step) {
  auto generator = at::detail::createCPUGenerator(c.seed * 1000003 + 17 + static_cast<uint64_t>(step));
  const auto ids = at::TensorOptions().dtype(at::kLong);
  const int64_t rows = c.batch * c.ranks, vocab = c.model.vocab_size;
  DdpBatch b;
  b.inputs = at::randint(vocab, {rows, c.context}, generator, ids);  // inputs first: the same stream as before
  b.targets = at::randint(vocab, {rows, c.context}, generator, ids);
  return b;
}

DdpBatch rank_rows(const DdpBatch& whole, int64_t first, int64_t rows, const c10::Device& device) {
  return {whole.inputs.narrow(0, first, rows).to(device), whole.targets.narrow(0, first, rows).to(device)};
}

}  // namespace stepscope
