// One configuration of the attention sweep as an experiment case: random Q, K, V and dO in
// the configuration's precision; a step is one forward pass and its backward pass, each timed
// on the device; before timing, the implementation's O, dQ, dK and dV are checked against
// naive attention in fp32 on the same inputs. A case may run in several rounds (see
// interleaved_rounds.h): each round builds its inputs afresh and adds its passes to the ones
// before; the check runs in the first round only.
#pragma once

#include <memory>

#include <ATen/core/Tensor.h>

#include "attention/attention_types.h"
#include "experiments/experiment_case.h"
#include "experiments/interleaved_rounds.h"

namespace stepscope {

class StepClock;

class AttentionCase final : public ExperimentCase {
 public:
  explicit AttentionCase(AttentionConfig config);
  ~AttentionCase() override;

  std::string label() const override;
  Device device() const override { return result_.config.device; }
  int warmup_steps() const override { return round_.warmup; }
  int measured_steps() const override { return round_.measured; }
  void check(DeviceBackend& backend) override;
  void prepare(DeviceBackend& backend, profiling::AllocationRecorder* memory) override;
  void run_step(const StepContext& step) override;
  void after_measuring(DeviceBackend& backend) override;
  void release() override;
  void finish(CaseEnd end) override;

  // The passes of the next run: round `slot.round` of `rounds`.
  void begin_round(const RoundSlot& slot, int rounds);
  const AttentionResult& result() const { return result_; }

 private:
  void check_against_naive();

  AttentionResult result_;
  DeviceBackend* backend_ = nullptr;
  std::unique_ptr<StepClock> clock_;
  at::Tensor q_, k_, v_, d_o_;
  std::vector<StepTiming> steps_;
  RoundSlot round_;
  int rounds_ = 1;
  bool checked_ = false;
};

// The largest sequence length at which naive fp32 attention over batch x heads fits the
// check's budget (a quarter of `available_bytes`, at most 2^28 scores); at most `seq`.
int64_t checkable_seq(const AttentionConfig& config, int64_t available_bytes);

}  // namespace stepscope
