// LibTorch's c10d process groups as the two versions name them: 1.13 derives Gloo and NCCL from
// ProcessGroup, 2.x from Backend. The rest of the engine sees only `C10dGroup`.
#pragma once

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <string>

#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/distributed/c10d/Backend.hpp>
#endif

namespace stepscope::compat {

#if TORCH_VERSION_MAJOR >= 2
using C10dGroup = c10d::Backend;
#else
using C10dGroup = c10d::ProcessGroup;
#endif

// A TCPStore at host:port: served here when `serve` (rank 0), else a client that tries to
// connect for up to `timeout`. Returns without waiting for the other ranks.
c10::intrusive_ptr<c10d::Store> connect_tcp_store(const std::string& host, int port, bool serve, int world_size,
                                                  std::chrono::milliseconds timeout);
// Gloo over TCP on `host`'s interface, or this machine's default one when `host` is empty (the CPU
// backend). Throws std::runtime_error naming what failed.
c10::intrusive_ptr<C10dGroup> make_gloo_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world_size,
                                              const std::string& host, std::chrono::milliseconds timeout);
// NCCL on the current CUDA device; throws on a build without CUDA.
c10::intrusive_ptr<C10dGroup> make_nccl_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world_size,
                                              std::chrono::milliseconds timeout);
bool has_nccl();
// Gloo reduces bfloat16 from LibTorch 2.x on; 1.13 says "Invalid scalar type".
bool gloo_has_bfloat16();

}  // namespace stepscope::compat
