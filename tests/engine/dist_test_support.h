// Helpers of the distributed tests (collectives, DDP): ranks as threads of this process, each joined to its own Gloo
// group over a TCPStore on a free port, and a one-rank communicator for error paths.
#pragma once

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "distributed/c10d_communicator.h"
#include "distributed/free_port.h"
#include "model/model_config.h"

namespace stepscope::testing {

// The model the DDP parity tests train: tiny at `context`, with a 256-token vocabulary (the
// handout's 10000 only slows the logits down).
inline ModelConfig parity_model(int64_t context) {
  ModelConfig config = with_context(model_preset("tiny"), context);
  config.vocab_size = 256;
  return config;
}

// Runs body(comm) on `ranks` threads; a rank's exception fails the test with its message.
inline void on_gloo_ranks(int ranks, const std::function<void(distributed::Communicator&)>& body) {
  const int port = distributed::find_free_port();
  std::vector<std::string> errors(static_cast<size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      try {
        distributed::TorchrunEnv env{"127.0.0.1", port, r, ranks, r, ranks};
        auto comm = distributed::connect_c10d(env, CommBackend::gloo, std::chrono::seconds(30));
        body(*comm);
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(r)] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < ranks; ++r) EXPECT_EQ(errors[static_cast<size_t>(r)], "") << "rank " << r;
}

// A group of one: every collective is already done.
class SoloCommunicator final : public distributed::Communicator {
 public:
  struct Done final : distributed::PendingCollective {
    void wait() override {}
  };
  int rank() const override { return 0; }
  int size() const override { return 1; }
  CommBackend backend() const override { return CommBackend::gloo; }
  bool native_reduce_scatter() const override { return true; }
  std::unique_ptr<distributed::PendingCollective> all_reduce(at::Tensor&, distributed::ReduceOp) override { return done(); }
  std::unique_ptr<distributed::PendingCollective> reduce_scatter(at::Tensor& out, const at::Tensor& in) override {
    out.copy_(in);
    return done();
  }
  std::unique_ptr<distributed::PendingCollective> all_gather(at::Tensor& out, const at::Tensor& in) override {
    out.copy_(in);
    return done();
  }
  std::unique_ptr<distributed::PendingCollective> broadcast(at::Tensor&, int) override { return done(); }
  void barrier() override {}

 private:
  static std::unique_ptr<distributed::PendingCollective> done() { return std::make_unique<Done>(); }
};

// A collective done before it returns.
struct DoneCollective final : distributed::PendingCollective {
  void wait() override {}
  bool call_when_done(std::function<void()> callback) override {
    callback();
    return true;
  }
};

// Another group's collectives, passed through: the base of the wrappers below, each of which
// changes one thing.
class ForwardingCommunicator : public distributed::Communicator {
 public:
  explicit ForwardingCommunicator(distributed::Communicator& inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  CommBackend backend() const override { return inner_.backend(); }
  bool native_reduce_scatter() const override { return inner_.native_reduce_scatter(); }
  bool sums_bfloat16() const override { return inner_.sums_bfloat16(); }
  bool averages() const override { return inner_.averages(); }
  std::unique_ptr<distributed::PendingCollective> all_reduce(at::Tensor& tensor, distributed::ReduceOp op) override {
    return inner_.all_reduce(tensor, op);
  }
  std::unique_ptr<distributed::PendingCollective> reduce_scatter(at::Tensor& out, const at::Tensor& in) override {
    return inner_.reduce_scatter(out, in);
  }
  std::unique_ptr<distributed::PendingCollective> all_gather(at::Tensor& out, const at::Tensor& in) override {
    return inner_.all_gather(out, in);
  }
  std::unique_ptr<distributed::PendingCollective> broadcast(at::Tensor& tensor, int root) override {
    return inner_.broadcast(tensor, root);
  }
  void barrier() override { inner_.barrier(); }

 protected:
  static std::unique_ptr<distributed::PendingCollective> done() { return std::make_unique<DoneCollective>(); }
  distributed::Communicator& inner_;
};

// A real group whose sums also take bf16: a bf16 all-reduce or reduce-scatter goes through
// fp32 and is rounded back to bf16 (for two ranks exactly the bf16 sum NCCL computes: each
// element's two addends added in fp32, rounded once). For Gloo in LibTorch 1.13, which sums no
// bf16 ("Invalid scalar type"). Done before it returns.
class Bf16SumsThroughFp32 final : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
  bool sums_bfloat16() const override { return true; }
  std::unique_ptr<distributed::PendingCollective> all_reduce(at::Tensor& tensor, distributed::ReduceOp op) override {
    if (tensor.scalar_type() != at::kBFloat16) return inner_.all_reduce(tensor, op);
    at::Tensor wide = tensor.to(at::kFloat);
    inner_.all_reduce(wide, op)->wait();
    tensor.copy_(wide);
    return done();
  }
  std::unique_ptr<distributed::PendingCollective> reduce_scatter(at::Tensor& out, const at::Tensor& in) override {
    if (in.scalar_type() != at::kBFloat16) return inner_.reduce_scatter(out, in);
    at::Tensor wide_out = at::empty(out.sizes(), out.options().dtype(at::kFloat));
    inner_.reduce_scatter(wide_out, in.to(at::kFloat))->wait();
    out.copy_(wide_out);
    return done();
  }
};

// A group whose all-reduce also averages, as NCCL's does (ncclAvg): the sum over `inner`, then
// divided by the ranks in the tensor's own type. For the gradient syncs' path that leaves the
// division to the collective, on Gloo (which has no average). Done before it returns.
class AveragesInCollective final : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
  bool averages() const override { return true; }
  std::unique_ptr<distributed::PendingCollective> all_reduce(at::Tensor& tensor, distributed::ReduceOp op) override {
    if (op != distributed::ReduceOp::average) return inner_.all_reduce(tensor, op);
    inner_.all_reduce(tensor, distributed::ReduceOp::sum)->wait();
    tensor.div_(size());
    averaged_ += 1;
    return done();
  }
  int averaged() const { return averaged_; }  // all-reduces that averaged

 private:
  int averaged_ = 0;
};

}  // namespace stepscope::testing
