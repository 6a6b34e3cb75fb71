#include "experiments/attention/attention_sweep.h"

#include <algorithm>
#include <memory>
#include <tuple>

#include "attention/attend.h"
#include "experiments/attention/attention_case.h"
#include "experiments/harness.h"
#include "experiments/interleaved_rounds.h"
#include "runners/device_backend.h"

namespace stepscope {

namespace {

bool same_but_impl(const AttentionConfig& a, const AttentionConfig& b) {
  const auto key = [](const AttentionConfig& c) {
    return std::tie(c.batch, c.heads, c.head_dim, c.seq, c.precision, c.causal, c.warmup_steps, c.measured_steps,
                    c.device, c.seed);
  };
  return key(a) == key(b);
}

// [begin, end) of each comparison: neighbours equal but for the implementation.
std::vector<std::pair<size_t, size_t>> comparisons(const std::vector<AttentionConfig>& configs) {
  std::vector<std::pair<size_t, size_t>> groups;
  for (size_t i = 0; i < configs.size();) {
    size_t j = i + 1;
    while (j < configs.size() && same_but_impl(configs[i], configs[j])) ++j;
    groups.emplace_back(i, j);
    i = j;
  }
  return groups;
}

int rounds_for(const AttentionConfig& c, int rounds) { return std::clamp(rounds, 1, std::max(1, c.measured_steps)); }

}  // namespace

void check_runnable(const AttentionConfig& c) {
  validate(c);
  check_attention_impl(c.impl, c.device, c.head_dim, c.seq, c.seq);  // the kernels' head dims, GPU or not
  check_device(c.device);
}

void run_attention_sweep(const std::vector<AttentionConfig>& configs, int rounds, ProgressSink* progress,
                         const CancelFlag* cancel, const std::function<void(const AttentionResult&)>& on_result) {
  const auto groups = comparisons(configs);
  int runs = 0;
  for (const auto& [begin, end] : groups) runs += static_cast<int>(end - begin) * rounds_for(configs[begin], rounds);
  int position = 0;
  const auto is_cancelled = [cancel] { return cancel && cancel->is_cancelled(); };
  for (const auto& [begin, end] : groups) {
    if (is_cancelled()) break;
    const AttentionConfig& first = configs[begin];
    const int group_rounds = rounds_for(first, rounds);
    std::vector<std::unique_ptr<AttentionCase>> cases;
    for (size_t i = begin; i < end; ++i) cases.push_back(std::make_unique<AttentionCase>(configs[i]));
    std::vector<bool> ran(cases.size(), false);
    const auto slots =
        interleaved_rounds(static_cast<int>(cases.size()), group_rounds, first.warmup_steps, first.measured_steps);
    for (const RoundSlot& slot : slots) {
      if (is_cancelled()) break;
      AttentionCase& c = *cases[static_cast<size_t>(slot.case_index)];
      ++position;
      if (c.result().status != RunStatus::ok) continue;  // sits out the rounds after a failure
      c.begin_round(slot, group_rounds);
      run_case(c, {position - 1, runs}, progress, cancel);
      ran[static_cast<size_t>(slot.case_index)] = true;
    }
    for (size_t i = 0; i < cases.size(); ++i) {
      if (!ran[i]) continue;
      AttentionCase& c = *cases[i];
      // Cancelled between two of its rounds: it measured fewer passes than asked.
      const auto measured = static_cast<int>(c.result().forward.count);
      if (c.result().status == RunStatus::ok && measured < first.measured_steps) {
        c.finish({RunStatus::cancelled, {}, 0, {}});
      }
      if (on_result) on_result(c.result());
    }
  }
}

}  // namespace stepscope
