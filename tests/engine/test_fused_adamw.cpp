// The fused AdamW's LibTorch reference (what a CPU build runs and what the kernels are checked
// against): against model/adamw.h's AdamW on separate tensors (the same rounding, so equal
// bits), against the rule worked through in double, the compute copy, ranges without gradients,
// the step counter and the refusals of bad views and arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "model/adamw.h"
#include "model/fused/fused_adamw.h"

namespace stepscope {
namespace {

using fused::FusedAdamW;

// Parameters of odd shapes as views of one flat buffer, laid out in an order other than the
// list's, with gaps between them (elements no parameter owns).
struct FlatParameters {
  at::Tensor flat;
  std::vector<at::Tensor> views;    // leaf views into flat, requires_grad
  std::vector<int64_t> offsets;
};

FlatParameters make_flat(const std::vector<std::vector<int64_t>>& shapes, const std::vector<size_t>& layout_order,
                         int64_t gap) {
  std::vector<int64_t> offsets(shapes.size());
  int64_t n = 0;
  for (size_t i : layout_order) {
    offsets[i] = n;
    n += c10::multiply_integers(shapes[i]) + gap;
  }
  FlatParameters f;
  f.flat = torch::randn({n});
  f.offsets = offsets;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const int64_t numel = c10::multiply_integers(shapes[i]);
    f.views.push_back(f.flat.narrow(0, offsets[i], numel).view(shapes[i]).detach().requires_grad_(true));
  }
  return f;
}

const std::vector<std::vector<int64_t>> kShapes = {{7, 13}, {5}, {3, 4, 2}, {1}, {33}};
const std::vector<size_t> kLayout = {3, 0, 4, 2, 1};

AdamWOptions test_options() {
  AdamWOptions o;
  o.lr = 1e-2;
  o.weight_decay = 0.1;
  return o;
}

TEST(FusedAdamW, ReferenceEqualsAdamWOnSeparateTensorsOverThreeSteps) {
  torch::manual_seed(1);
  auto f = make_flat(kShapes, kLayout, 3);
  std::vector<at::Tensor> separate;
  for (const auto& p : f.views) separate.push_back(p.detach().clone().requires_grad_(true));
  const auto options = test_options();
  FusedAdamW fused_optimizer(f.flat, f.views, at::Tensor(), options);
  AdamW adamw(separate, options);
  for (int step = 1; step <= 3; ++step) {
    for (size_t i = 0; i < f.views.size(); ++i) {
      const auto g = torch::randn(f.views[i].sizes());
      f.views[i].mutable_grad() = g.clone();
      separate[i].mutable_grad() = g.clone();
    }
    fused_optimizer.step();
    adamw.step();
    for (size_t i = 0; i < f.views.size(); ++i) {
      const int64_t numel = f.views[i].numel();
      EXPECT_TRUE(torch::equal(f.views[i], separate[i])) << "parameter " << i << ", step " << step;
      EXPECT_TRUE(torch::equal(fused_optimizer.first_moment().narrow(0, f.offsets[i], numel),
                               adamw.first_moment(i).reshape({numel})))
          << "m of parameter " << i << ", step " << step;
      EXPECT_TRUE(torch::equal(fused_optimizer.second_moment().narrow(0, f.offsets[i], numel),
                               adamw.second_moment(i).reshape({numel})))
          << "v of parameter " << i << ", step " << step;
    }
  }
  EXPECT_EQ(fused_optimizer.step_count(), 3);
}

// The rule worked through in double, element by element (independent of adamw.cpp), with bf16
// gradients (read exactly as fp32), a range without a gradient and a gap.
TEST(FusedAdamW, ReferenceMatchesTheRuleInDoubleWithBf16Gradients) {
  torch::manual_seed(2);
  const int64_t n = 40;
  auto params = torch::randn({n});
  auto m = torch::zeros({n}), v = torch::zeros({n});
  auto step = torch::zeros({1}, torch::kLong);
  const std::vector<int64_t> offsets = {0, 11, 17, 39};
  const std::vector<int64_t> sizes = {11, 5, 20, 1};  // 16 not covered by any; [17, 37) by grads[2]; 37, 38 gaps
  const auto options = test_options();
  std::vector<double> p(n), mm(n, 0.0), vv(n, 0.0);
  for (int64_t e = 0; e < n; ++e) p[e] = params[e].item<double>();
  const auto p0 = params.clone();
  for (int t = 1; t <= 3; ++t) {
    std::vector<at::Tensor> grads;
    for (size_t i = 0; i < sizes.size(); ++i) grads.push_back(torch::randn({sizes[i]}).to(torch::kBFloat16));
    grads[1] = at::Tensor();  // [11, 16) keeps its values
    fused::fused_adamw_update_reference(params, grads, offsets, m, v, step, at::Tensor(), options);
    const double a_t = options.lr * std::sqrt(1 - std::pow(options.beta2, t)) / (1 - std::pow(options.beta1, t));
    for (size_t i = 0; i < grads.size(); ++i) {
      if (!grads[i].defined()) continue;
      for (int64_t j = 0; j < sizes[i]; ++j) {
        const int64_t e = offsets[i] + j;
        const double g = grads[i][j].item<double>();
        mm[e] = options.beta1 * mm[e] + (1 - options.beta1) * g;
        vv[e] = options.beta2 * vv[e] + (1 - options.beta2) * g * g;
        p[e] -= a_t * mm[e] / (std::sqrt(vv[e]) + options.eps);
        p[e] *= 1 - options.lr * options.weight_decay;
      }
    }
    for (int64_t e = 0; e < n; ++e) {
      EXPECT_NEAR(params[e].item<double>(), p[e], 2e-6 * std::max(1.0, std::abs(p[e]))) << "p[" << e << "], step " << t;
      EXPECT_NEAR(m[e].item<double>(), mm[e], 1e-6) << "m[" << e << "], step " << t;
      EXPECT_NEAR(v[e].item<double>(), vv[e], 1e-6 * std::max(1e-3, vv[e])) << "v[" << e << "], step " << t;
    }
    EXPECT_EQ(step.item<int64_t>(), t);
  }
  // Nothing covered [11, 17) nor the gap [37, 39): unchanged, moments still zero.
  for (int64_t e : {11, 12, 15, 16, 37, 38}) {
    EXPECT_EQ(params[e].item<float>(), p0[e].item<float>()) << e;
    EXPECT_EQ(m[e].item<float>(), 0.0f) << e;
    EXPECT_EQ(v[e].item<float>(), 0.0f) << e;
  }
}

TEST(FusedAdamW, ComputeCopyEqualsTheParametersRounded) {
  torch::manual_seed(3);
  for (const auto type : {torch::kBFloat16, torch::kFloat16}) {
    auto f = make_flat(kShapes, kLayout, 2);
    auto copy = torch::empty({f.flat.numel()}, type);
    FusedAdamW optimizer(f.flat, f.views, copy, test_options());
    EXPECT_TRUE(torch::equal(copy, f.flat.to(type))) << "after construction";
    for (int step = 0; step < 3; ++step) {
      for (size_t i = 0; i < f.views.size(); ++i) {
        // The last parameter never gets a gradient: its part of the copy stays right too.
        if (i + 1 < f.views.size()) f.views[i].mutable_grad() = torch::randn(f.views[i].sizes());
      }
      optimizer.step();
      EXPECT_TRUE(torch::equal(copy, f.flat.to(type))) << "step " << step << ", " << c10::toString(type);
    }
  }
}

TEST(FusedAdamW, ParameterWithoutGradientKeepsItsRangeAndState) {
  torch::manual_seed(4);
  auto f = make_flat(kShapes, kLayout, 0);
  const auto before = f.flat.clone();
  FusedAdamW optimizer(f.flat, f.views, at::Tensor(), test_options());
  for (size_t i = 0; i < f.views.size(); ++i) {
    if (i != 2) f.views[i].mutable_grad() = torch::randn(f.views[i].sizes());
  }
  optimizer.step();
  optimizer.step();
  const int64_t off = f.offsets[2], numel = f.views[2].numel();
  EXPECT_TRUE(torch::equal(f.flat.narrow(0, off, numel), before.narrow(0, off, numel)));
  EXPECT_EQ(optimizer.first_moment().narrow(0, off, numel).abs().max().item<float>(), 0.0f);
  EXPECT_EQ(optimizer.second_moment().narrow(0, off, numel).abs().max().item<float>(), 0.0f);
  EXPECT_FALSE(torch::equal(f.flat.narrow(0, f.offsets[0], 4), before.narrow(0, f.offsets[0], 4)));
  EXPECT_EQ(optimizer.step_count(), 2);
}

// Gradients from autograd on a loss of the parameters, as the engine gets them; many small
// tensors and a small batch size so that the reference updates in several batches.
TEST(FusedAdamW, AutogradGradientsInSeveralBatchesEqualAdamW) {
  torch::manual_seed(5);
  std::vector<std::vector<int64_t>> shapes;
  std::vector<size_t> order;
  for (int64_t i = 0; i < 150; ++i) {
    shapes.push_back({1 + (i * 7) % 23});
    order.push_back(static_cast<size_t>((i * 37) % 150));
  }
  auto f = make_flat(shapes, order, 1);
  std::vector<at::Tensor> separate;
  for (const auto& p : f.views) separate.push_back(p.detach().clone().requires_grad_(true));
  auto options = test_options();
  options.chunk_elements = 50;
  FusedAdamW fused_optimizer(f.flat, f.views, at::Tensor(), options);
  AdamW adamw(separate, options);
  for (int step = 0; step < 3; ++step) {
    for (auto* list : {&f.views, &separate}) {
      at::Tensor loss = torch::zeros({});
      for (size_t i = 0; i < list->size(); ++i) loss = loss + ((*list)[i] * (*list)[i]).sum() * (1.0 + 0.01 * i);
      for (auto& p : *list) p.mutable_grad() = at::Tensor();
      loss.backward();
    }
    fused_optimizer.step();
    adamw.step();
  }
  for (size_t i = 0; i < f.views.size(); ++i) EXPECT_TRUE(torch::equal(f.views[i], separate[i])) << i;
}

TEST(FusedAdamW, StepCounterMovesEvenWithoutGradients) {
  auto f = make_flat(kShapes, kLayout, 0);
  FusedAdamW optimizer(f.flat, f.views, at::Tensor());
  EXPECT_EQ(optimizer.step_count(), 0);
  optimizer.step();
  EXPECT_EQ(optimizer.step_count(), 1);
}

void expect_invalid(const std::function<void()>& call, const std::string& words) {
  try {
    call();
    ADD_FAILURE() << "no exception; expected one mentioning '" << words << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(FusedAdamW, RefusesParametersThatAreNotContiguousViewsOfTheFlatBuffer) {
  auto flat = torch::zeros({100});
  const auto inside = flat.narrow(0, 10, 12);
  expect_invalid([&] { FusedAdamW optimizer(flat, {inside, torch::zeros({4})}, at::Tensor()); }, "parameter 1 is not a view");
  expect_invalid([&] { FusedAdamW optimizer(flat, {flat.narrow(0, 0, 12).view({3, 4}).t()}, at::Tensor()); },
                 "parameter 0 is not contiguous");
  expect_invalid([&] { FusedAdamW optimizer(flat, {inside, flat.narrow(0, 20, 5)}, at::Tensor()); },
                 "parameters 0 and 1 overlap");
  expect_invalid([&] { FusedAdamW optimizer(flat, {flat.to(torch::kFloat64)}, at::Tensor()); }, "parameter 0 must be fp32");
  expect_invalid([&] { FusedAdamW optimizer(flat.view({10, 10}), {}, at::Tensor()); }, "flat parameter buffer");
  expect_invalid([&] { FusedAdamW optimizer(flat, {inside}, torch::zeros({99}, torch::kBFloat16)); }, "compute copy");
  expect_invalid([&] { FusedAdamW optimizer(flat, {inside}, at::Tensor(), AdamWOptions{-1.0}); }, "learning rate");
  // A view of the storage beyond the flat tensor's own elements.
  auto storage = torch::zeros({120});
  auto part = storage.narrow(0, 0, 100);
  expect_invalid([&] { FusedAdamW optimizer(part, {storage.narrow(0, 95, 10)}, at::Tensor()); }, "outside the flat buffer");
  expect_invalid([&] { FusedAdamW optimizer(part, {storage.narrow(0, 101, 10)}, at::Tensor()); }, "outside the flat buffer");
}

TEST(FusedAdamW, UpdateRefusesBadArguments) {
  auto params = torch::zeros({10}), m = torch::zeros({10}), v = torch::zeros({10});
  auto step = torch::zeros({1}, torch::kLong);
  const AdamWOptions o;
  auto update = [&](std::vector<at::Tensor> grads, std::vector<int64_t> offsets, at::Tensor s, at::Tensor copy) {
    return [=] { fused::fused_adamw_update_reference(params, grads, offsets, m, v, s, copy, o); };
  };
  expect_invalid(update({torch::ones({4}), torch::ones({4})}, {0, 3}, step, {}), "overlapping");
  expect_invalid(update({torch::ones({4})}, {7}, step, {}), "reaches past");
  expect_invalid(update({torch::ones({4})}, {-1}, step, {}), "reaches past");
  expect_invalid(update({torch::ones({4})}, {0, 4}, step, {}), "differ in length");
  expect_invalid(update({torch::ones({4}, torch::kFloat64)}, {0}, step, {}), "fp32, bf16 or fp16");
  expect_invalid(update({torch::ones({4, 2}).t()}, {0}, step, {}), "contiguous");
  expect_invalid(update({}, {}, torch::zeros({1}), {}), "step must be an int64");
  expect_invalid(update({}, {}, step, torch::zeros({10})), "compute copy");
  EXPECT_EQ(step.item<int64_t>(), 0);  // nothing ran
}

TEST(FusedAdamW, DispatchOnCpuRunsTheReference) {
  torch::manual_seed(6);
  auto a = torch::randn({9}), b = a.clone();
  auto ma = torch::zeros({9}), va = torch::zeros({9}), mb = torch::zeros({9}), vb = torch::zeros({9});
  auto sa = torch::zeros({1}, torch::kLong), sb = torch::zeros({1}, torch::kLong);
  const auto g = torch::randn({6});
  fused::fused_adamw_update(a, {g}, {2}, ma, va, sa, at::Tensor(), test_options());
  fused::fused_adamw_update_reference(b, {g}, {2}, mb, vb, sb, at::Tensor(), test_options());
  EXPECT_TRUE(torch::equal(a, b));
  EXPECT_TRUE(torch::equal(ma, mb));
  EXPECT_EQ(sa.item<int64_t>(), 1);
}

}  // namespace
}  // namespace stepscope
