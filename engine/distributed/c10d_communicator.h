// The Communicator on LibTorch's c10d: a TCPStore rendezvous, then ProcessGroupGloo (CPU
// tensors) or ProcessGroupNCCL (CUDA tensors), as PyTorch's DDP runs on.
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <memory>
#include <string>

#include "distributed/communicator.h"
#include "distributed/launch_env.h"

namespace stepscope::distributed {

// Joins the group every rank of `rendezvous` joins (torchrun's variables: the store at
// MASTER_ADDR:MASTER_PORT, this RANK of WORLD_SIZE), with no agreement on settings (the CLI's
// ranks go through JobRendezvous). Throws std::runtime_error naming what failed (the store,
// the backend); a rank that never arrives fails it after `timeout`. NCCL uses the current CUDA
// device.
std::unique_ptr<Communicator> connect_c10d(const TorchrunEnv& rendezvous, CommBackend backend,
                                           std::chrono::milliseconds timeout);

// The process group on `backend` over a store every rank of `rendezvous` reached.
std::unique_ptr<Communicator> make_c10d_communicator(const c10::intrusive_ptr<c10d::Store>& store,
                                                     const TorchrunEnv& rendezvous, CommBackend backend,
                                                     std::chrono::milliseconds timeout);

}  // namespace stepscope::distributed
