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

namespace stepscope::testing {

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

}  // namespace stepscope::testing
