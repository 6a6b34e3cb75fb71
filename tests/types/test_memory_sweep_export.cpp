#include <gtest/gtest.h>

#include <sstream>

#include "io/memory_sweep_export.h"

namespace stepscope {
namespace {

BenchResult row(const char* model, int64_t context, Precision precision, StepMode mode, RunStatus status,
                int64_t peak) {
  BenchResult r;
  r.config.model = model_preset(model);
  r.config.context = context;
  r.config.precision = precision;
  r.config.mode = mode;
  r.status = status;
  r.peak_memory_bytes = peak;
  return r;
}

TEST(MemorySweepExport, PairsForwardAndTrainPeaksWithOomCells) {
  const std::vector<BenchResult> results = {
      row("2.7B", 128, Precision::fp32, StepMode::forward, RunStatus::ok, 100),
      row("2.7B", 128, Precision::fp32, StepMode::train, RunStatus::ok, 400),
      row("2.7B", 512, Precision::bf16, StepMode::forward, RunStatus::ok, 300),
      row("2.7B", 512, Precision::bf16, StepMode::train, RunStatus::out_of_memory, -1),
  };
  EXPECT_TRUE(has_memory_sweep(results));
  std::ostringstream out;
  write_memory_sweep_csv(out, results);
  EXPECT_EQ(out.str(),
            "model,context,batch,precision,forward_peak_bytes,train_step_peak_bytes\n"
            "2.7B,128,4,fp32,100,400\n"
            "2.7B,512,4,bf16,300,OOM\n");
  EXPECT_FALSE(has_memory_sweep({results[0]}));
}

}  // namespace
}  // namespace stepscope
