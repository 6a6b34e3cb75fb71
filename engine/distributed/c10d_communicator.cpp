#include "distributed/c10d_communicator.h"

#include <ATen/ATen.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "compat/c10d_compat.h"
#include "distributed/job_rendezvous.h"
#include "core/config_error.h"

namespace stepscope::distributed {

namespace {

class C10dWork final : public PendingCollective {
 public:
  C10dWork(c10::intrusive_ptr<c10d::Work> work, CommBackend backend) : work_(std::move(work)), backend_(backend) {}
  void wait() override {
    work_->wait();
    if (backend_ == CommBackend::gloo) wait_for_worker_to_let_go();
  }
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
  // Gloo's worker thread still holds the work for a moment after it wakes the waiter, and the
  // work holds the collective's tensors. A temporary whose last reference went with that thread
  // would be freed there, out of sight of the allocation recorder (a per-thread hook,
  // profiling/allocation_recorder.h), and look live for the rest of the run. So wait() returns
  // once this handle is the work's only owner: the tensors go on the caller's thread. Bounded,
  // in case a LibTorch keeps works elsewhere.
  void wait_for_worker_to_let_go() const {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    while (work_.use_count() > 1 && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
  }

  c10::intrusive_ptr<c10d::Work> work_;
  CommBackend backend_;
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
  bool sums_bfloat16() const override { return backend_ == CommBackend::nccl || compat::gloo_has_bfloat16(); }
  bool averages() const override { return backend_ == CommBackend::nccl; }

  std::unique_ptr<PendingCollective> all_reduce(at::Tensor& tensor, ReduceOp op) override {
    std::vector<at::Tensor> tensors{tensor};
    c10d::AllreduceOptions options;
    if (op == ReduceOp::average && !averages()) throw std::invalid_argument("all_reduce: Gloo has no average");
    options.reduceOp = op == ReduceOp::max       ? c10d::ReduceOp::MAX
                       : op == ReduceOp::average ? c10d::ReduceOp::AVG
                                                 : c10d::ReduceOp::SUM;
    return pending(group_->allreduce(tensors, options));
  }

  std::unique_ptr<PendingCollective> reduce_scatter(at::Tensor& output, const at::Tensor& input) override {
    check_slices("reduce_scatter", output, input);
    if (native_reduce_scatter()) {
      at::Tensor in = input;
      return pending(group_->_reduce_scatter_base(output, in, c10d::ReduceScatterOptions()));
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
      return pending(group_->_allgather_base(output, in, c10d::AllgatherOptions()));
    }
    // Gloo gathers into a list of tensors: views of `output`'s slices. In place (`input` is this
    // rank's slice of `output`, as ZeRO-1 gathers) needs no copy: ProcessGroupGloo (LibTorch 1.13
    // and 2.11) gathers into a flat buffer of its own and copies the slices out after reading the
    // input. A copy here was held by the work until Gloo's worker thread let go of it, which could
    // be after wait() returned: a stray share-sized allocation in the next step's memory.
    at::Tensor flat = output.view({-1});
    std::vector<std::vector<at::Tensor>> outputs(1);
    for (int r = 0; r < size_; ++r) outputs[0].push_back(flat.narrow(0, r * input.numel(), input.numel()));
    std::vector<at::Tensor> inputs{input.view({-1})};
    return pending(group_->allgather(outputs, inputs, c10d::AllgatherOptions()));
  }

  std::unique_ptr<PendingCollective> broadcast(at::Tensor& tensor, int root) override {
    std::vector<at::Tensor> tensors{tensor};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    return pending(group_->broadcast(tensors, options));
  }

  void barrier() override { group_->barrier(c10d::BarrierOptions())->wait(); }

 private:
  std::unique_ptr<PendingCollective> pending(c10::intrusive_ptr<c10d::Work> work) const {
    return std::make_unique<C10dWork>(std::move(work), backend_);
  }

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

std::unique_ptr<Communicator> make_c10d_communicator(const c10::intrusive_ptr<c10d::Store>& store,
                                                     const TorchrunEnv& r, CommBackend backend,
                                                     std::chrono::milliseconds timeout) {
  auto group = backend == CommBackend::nccl
                   ? compat::make_nccl_group(store, r.rank, r.world_size, timeout)
                   : compat::make_gloo_group(store, r.rank, r.world_size, gloo_interface_host(r.master_addr), timeout);
  return std::make_unique<C10dCommunicator>(store, group, r.rank, r.world_size, backend);
}

std::unique_ptr<Communicator> connect_c10d(const TorchrunEnv& r, CommBackend backend, std::chrono::milliseconds timeout) {
  return JobRendezvous(r, timeout).join(backend);
}

}  // namespace stepscope::distributed
