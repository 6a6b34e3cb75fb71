// One rank's way into its job over LibTorch's c10d: the TCPStore at MASTER_ADDR:MASTER_PORT
// (rank 0 serves it), the place the ranks agree and report (job_agreement.h, through JobStore),
// then the process group (Gloo or NCCL).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "distributed/communicator.h"
#include "distributed/job_store.h"
#include "distributed/launch_env.h"

namespace stepscope::distributed {

class JobRendezvous {
 public:
  // Opens (rank 0) or reaches the store; throws std::runtime_error naming the endpoint. A
  // client keeps trying to connect for up to `timeout`.
  JobRendezvous(const TorchrunEnv& env, std::chrono::milliseconds timeout);
  ~JobRendezvous();
  JobRendezvous(const JobRendezvous&) = delete;
  JobRendezvous& operator=(const JobRendezvous&) = delete;

  // "HOST:PORT".
  std::string endpoint() const;
  JobStore& store() { return *store_; }
  // A client connection of its own, for another thread (never serving).
  std::unique_ptr<JobStore> connect_client() const;
  // The process group of the job on `backend`; every rank calls it after they agreed.
  std::unique_ptr<Communicator> join(CommBackend backend);

 private:
  struct Impl;
  TorchrunEnv env_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<JobStore> store_;
};

}  // namespace stepscope::distributed
