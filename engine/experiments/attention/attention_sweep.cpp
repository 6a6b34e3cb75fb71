#include "experiments/attention/attention_sweep.h"

#include "attention/attend.h"
#include "experiments/attention/attention_case.h"
#include "experiments/harness.h"

namespace stepscope {

void check_runnable(const AttentionConfig& c) {
  validate(c);
  check_attention_impl(c.impl, c.device, c.head_dim, c.seq, c.seq);
}

void run_attention_sweep(const std::vector<AttentionConfig>& configs, ProgressSink* progress,
                         const CancelFlag* cancel, const std::function<void(const AttentionResult&)>& on_result) {
  const int count = static_cast<int>(configs.size());
  for (int i = 0; i < count; ++i) {
    if (cancel && cancel->is_cancelled()) break;
    AttentionCase c(configs[static_cast<size_t>(i)]);
    run_case(c, {i, count}, progress, cancel);
    if (on_result) on_result(c.result());
  }
}

}  // namespace stepscope
