// Values that become infinite when narrowed (float64 1e300 as float32, 70000 as fp16)
// are found before the narrowing, so no NaN reaches a result unsaid.
#include <gtest/gtest.h>

#include <limits>

#include <torch/torch.h>

#include "io/dtype_overflow.h"
#include "io/checkpoint.h"

using stepscope::first_overflow;

TEST(DtypeOverflow, FindsTheFirstFiniteValueThatBecomesInfinite) {
  const double max32 = std::numeric_limits<float>::max();
  const auto f64 = [](std::vector<double> v) { return torch::tensor(v, torch::kFloat64); };
  EXPECT_FALSE(first_overflow(f64({1.0, -max32, max32, 1e-300}), torch::kFloat32));
  EXPECT_EQ(*first_overflow(f64({1.0, 1e300, -1e301}), torch::kFloat32), 1e300);
  EXPECT_EQ(*first_overflow(f64({-1e39}), torch::kFloat32), -1e39);
  // Already infinite or NaN: what the file says, not what narrowing did.
  EXPECT_FALSE(first_overflow(f64({std::numeric_limits<double>::infinity(), std::nan("")}), torch::kFloat32));
  // Rounding at the edge: 65519 rounds to fp16's 65504, 65520 to infinity.
  EXPECT_FALSE(first_overflow(torch::tensor({65519.0f}), torch::kHalf));
  EXPECT_EQ(*first_overflow(torch::tensor({1.0f, 65520.0f}), torch::kHalf), 65520.0);
  // bf16's largest is 3.3895e38: float32's 3.4e38 is past it.
  EXPECT_FALSE(first_overflow(f64({3.38e38}), torch::kBFloat16));
  EXPECT_EQ(*first_overflow(torch::tensor({3.4e38f}), torch::kBFloat16), static_cast<double>(3.4e38f));
  // Widening, integers and empty tensors never overflow.
  EXPECT_FALSE(first_overflow(torch::tensor({3.0e38f}), torch::kFloat64));
  EXPECT_FALSE(first_overflow(torch::tensor({1, 2}), torch::kHalf));
  EXPECT_FALSE(first_overflow(torch::zeros({0}, torch::kFloat64), torch::kFloat32));
  EXPECT_NE(stepscope::overflow_text(1e300, torch::kFloat32).find("1e+300, beyond float32's range"),
            std::string::npos);
}

TEST(DtypeOverflow, Float64CheckpointBeyondFloat32IsRefusedNamingTheTensorAndValue) {
  auto config = stepscope::model_preset("tiny");
  stepscope::TransformerLM model(config, torch::TensorOptions().dtype(torch::kFloat32));
  stepscope::StateDict state = stepscope::model_state_dict(*model);
  for (auto& entry : state) entry.tensor = entry.tensor.to(torch::kFloat64);
  // In range, float64 loads: the model holds the same numbers rounded to float32.
  stepscope::load_state_dict(*model, state);
  state[1].tensor.view(-1)[3] = 1e300;
  try {
    stepscope::load_state_dict(*model, state);
    FAIL() << "1e300 loaded into float32";
  } catch (const stepscope::CheckpointError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'" + state[1].name + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("1e+300"), std::string::npos) << message;
  }
  for (const auto& p : model->parameters()) EXPECT_TRUE(torch::isfinite(p).all().item<bool>());
}
