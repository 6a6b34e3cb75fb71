#include "distributed/job_rendezvous.h"

#include <stdexcept>
#include <vector>

#include "compat/c10d_compat.h"
#include "distributed/c10d_communicator.h"

namespace stepscope::distributed {

namespace {

class C10dJobStore final : public JobStore {
 public:
  explicit C10dJobStore(c10::intrusive_ptr<c10d::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::string& value) override {
    store_->set(key, std::vector<uint8_t>(value.begin(), value.end()));
  }
  std::optional<std::string> get_if_set(const std::string& key) override {
    if (!store_->check({key})) return std::nullopt;
    const auto bytes = store_->get(key);
    return std::string(bytes.begin(), bytes.end());
  }
  int64_t add(const std::string& key, int64_t delta) override { return store_->add(key, delta); }

 private:
  c10::intrusive_ptr<c10d::Store> store_;
};

}  // namespace

struct JobRendezvous::Impl {
  c10::intrusive_ptr<c10d::Store> store;
};

JobRendezvous::JobRendezvous(const TorchrunEnv& env, std::chrono::milliseconds timeout)
    : env_(env), timeout_(timeout), impl_(std::make_unique<Impl>()) {
  try {
    impl_->store = compat::connect_tcp_store(env.master_addr, env.master_port, env.rank == 0, env.world_size, timeout);
  } catch (const std::exception& e) {
    throw std::runtime_error("rank " + std::to_string(env.rank) + (env.rank == 0 ? " could not serve" : " could not reach") +
                             " the rendezvous at " + endpoint() + ": " + e.what());
  }
  store_ = std::make_unique<C10dJobStore>(impl_->store);
}

JobRendezvous::~JobRendezvous() = default;

std::string JobRendezvous::endpoint() const { return env_.master_addr + ":" + std::to_string(env_.master_port); }

std::unique_ptr<JobStore> JobRendezvous::connect_client() const {
  return std::make_unique<C10dJobStore>(
      compat::connect_tcp_store(env_.master_addr, env_.master_port, false, env_.world_size, timeout_));
}

std::unique_ptr<Communicator> JobRendezvous::join(CommBackend backend) {
  return make_c10d_communicator(impl_->store, env_, backend, timeout_);
}

}  // namespace stepscope::distributed
