#include "dist/c10d_communicator.h"

#include <ATen/ATen.h>

#include <stdexcept>

#include "compat/c10d_compat.h"
#include "model/model_config.h"

namespace stepscope::dist {

namespace {

class C10dWork final : public PendingCollective {
 public:
  explicit C10dWork(c10::intrusive_ptr<c10d::Work> work) : work_(std::move(work)) {}
  void wait() override { work_->wait(); }
  // Gloo completes the work's future before waking its waiters; a work type without a future
  // (getFuture throws) leaves the caller to take wait()'s return.
  bool call_when_done(std::function<void()> done) override {
    try {
      work_->getFuture()->addCallback([done = std::move(done)](c10::ivalue::Future&) { done(); });
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }

 private:
  c10::intrusive_ptr<c10d::Work> work_;
};

// A collective done before it returns (a composite of other collectives).
class DoneWork final : public PendingCollective {
 public:
  void wait() override {}
  bool call_when_done(std::function<void()> done) override {
    done();
    return true;
  }
};

class C10dCommunicator final : public Communicator {
 public:
  C10dCommunicator(c10::intrusive_ptr<c10d::Store> store, c10::intrusive_ptr<compat::C10dGroup> group, int rank,
                   int size, CommBackend backend)
      : store_(std::move(store)), group_(std::move(group)), rank_(rank), size_(size), backend_(backend) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  CommBackend backend() const override { return backend_; }
  bool native_reduce_scatter() const override { return backend_ == CommBackend::nccl; }

  std::unique_ptr<PendingCollective> all_reduce(at::Tensor& tensor, ReduceOp op) override {
    std::vector<at::Tensor> tensors{tensor};
    c10d::AllreduceOptions options;
    options.reduceOp = op == ReduceOp::max ? c10d::ReduceOp::MAX : c10d::ReduceOp::SUM;
    return std::make_unique<C10dWork>(group_->allreduce(tensors, options));
  }

  std::unique_ptr<PendingCollective> reduce_scatter(at::Tensor& output, const at::Tensor& input) override {
    check_slices("reduce_scatter", output, input);
    if (native_reduce_scatter()) {
      at::Tensor in = input;
      return std::make_unique<C10dWork>(group_->_reduce_scatter_base(output, in, c10d::ReduceScatterOptions()));
    }
    // Gloo has no reduce-scatter in LibTorch: all-reduce and keep this rank's slice; in place
    // when `output` is that slice already, else on a copy.
    if (is_own_slice(output, input)) {
      at::Tensor in = input;
      all_reduce(in, ReduceOp::sum)->wait();
      return std::make_unique<DoneWork>();
    }
    at::Tensor reduced = input.clone();
    all_reduce(reduced, ReduceOp::sum)->wait();
    output.copy_(reduced.view({-1}).narrow(0, rank_ * output.numel(), output.numel()).view(output.sizes()));
    return std::make_unique<DoneWork>();
  }

  std::unique_ptr<PendingCollective> all_gather(at::Tensor& output, const at::Tensor& input) override {
    check_slices("all_gather", input, output);
    if (backend_ == CommBackend::nccl) {
      at::Tensor in = input;
      return std::make_unique<C10dWork>(group_->_allgather_base(output, in, c10d::AllgatherOptions()));
    }
    // Gloo gathers into a list of tensors: views of `output`'s slices. In place (`input` is this
    // rank's slice of `output`), it reads a copy: its outputs would alias its input.
    at::Tensor flat = output.view({-1});
    std::vector<std::vector<at::Tensor>> outputs(1);
    for (int r = 0; r < size_; ++r) outputs[0].push_back(flat.narrow(0, r * input.numel(), input.numel()));
    std::vector<at::Tensor> inputs{input.is_alias_of(output) ? input.reshape({-1}).clone() : input.view({-1})};
    return std::make_unique<C10dWork>(group_->allgather(outputs, inputs, c10d::AllgatherOptions()));
  }

  std::unique_ptr<PendingCollective> broadcast(at::Tensor& tensor, int root) override {
    std::vector<at::Tensor> tensors{tensor};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    return std::make_unique<C10dWork>(group_->broadcast(tensors, options));
  }

  void barrier() override { group_->barrier(c10d::BarrierOptions())->wait(); }

 private:
  // Whether `output` is the slice of `input` that this rank's reduction lands in.
  bool is_own_slice(const at::Tensor& output, const at::Tensor& input) const {
    if (!output.is_contiguous() || !input.is_contiguous() || !output.is_alias_of(input)) return false;
    const auto offset = static_cast<int64_t>(rank_) * output.numel() * static_cast<int64_t>(input.element_size());
    return output.data_ptr() == static_cast<const char*>(input.data_ptr()) + offset;
  }

  void check_slices(const char* what, const at::Tensor& part, const at::Tensor& whole) const {
    if (whole.numel() != part.numel() * size_ || !whole.is_contiguous() || !part.is_contiguous()) {
      throw std::invalid_argument(std::string(what) + ": the whole tensor must be " + std::to_string(size_) +
                                  " contiguous slices of the part's size");
    }
  }

  c10::intrusive_ptr<c10d::Store> store_;  // the group's rendezvous outlives it
  c10::intrusive_ptr<compat::C10dGroup> group_;
  int rank_, size_;
  CommBackend backend_;
};

// Ranks on one machine talk over loopback; across machines Gloo binds to this host's own address.
std::string gloo_interface_host(const std::string& master_addr) {
  const bool loopback = master_addr == "localhost" || master_addr.rfind("127.", 0) == 0 || master_addr == "::1";
  return loopback ? "127.0.0.1" : std::string();
}

}  // namespace

std::unique_ptr<Communicator> connect_c10d(const TorchrunEnv& r, CommBackend backend, std::chrono::milliseconds timeout) {
  c10::intrusive_ptr<c10d::Store> store;
  try {
    store = compat::connect_tcp_store(r.master_addr, r.master_port, r.rank, r.world_size, timeout);
  } catch (const std::exception& e) {
    throw std::runtime_error("rank " + std::to_string(r.rank) + " could not reach the rendezvous at " + r.master_addr +
                             ":" + std::to_string(r.master_port) + ": " + e.what());
  }
  auto group = backend == CommBackend::nccl
                   ? compat::make_nccl_group(store, r.rank, r.world_size, timeout)
                   : compat::make_gloo_group(store, r.rank, r.world_size, gloo_interface_host(r.master_addr), timeout);
  return std::make_unique<C10dCommunicator>(store, group, r.rank, r.world_size, backend);
}

}  // namespace stepscope::dist
