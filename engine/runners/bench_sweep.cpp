#include "runners/bench_sweep.h"

#include "runners/step_benchmark.h"

namespace stepscope {

namespace {

// Adds the sweep position to the per-run progress.
class SweepProgress final : public ProgressSink {
 public:
  SweepProgress(ProgressSink* inner, int index, int count) : inner_(inner), index_(index), count_(count) {}
  void on_progress(const Progress& progress) override {
    Progress p = progress;
    p.config_index = index_;
    p.config_count = count_;
    inner_->on_progress(p);
  }

 private:
  ProgressSink* inner_;
  int index_, count_;
};

}  // namespace

std::vector<BenchResult> run_sweep(const std::vector<BenchConfig>& configs, ProgressSink* progress,
                                   const CancelFlag* cancel,
                                   const std::function<void(const BenchResult&)>& on_result) {
  std::vector<BenchResult> results;
  for (size_t i = 0; i < configs.size(); ++i) {
    if (cancel && cancel->is_cancelled()) break;
    SweepProgress sweep_progress(progress, static_cast<int>(i), static_cast<int>(configs.size()));
    results.push_back(run_step_benchmark(configs[i], progress ? &sweep_progress : nullptr, cancel));
    if (on_result) on_result(results.back());
  }
  return results;
}

}  // namespace stepscope
