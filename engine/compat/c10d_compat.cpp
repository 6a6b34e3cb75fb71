#include "compat/c10d_compat.h"

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

// The CUDA wheel's LibTorch has Gloo inside but ships no Gloo headers; its c10d header needs them.
#if defined(USE_C10D_GLOO) && __has_include(<gloo/algorithm.h>)
#define STEPSCOPE_HAS_GLOO 1
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef STEPSCOPE_WITH_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <stdexcept>

namespace stepscope::compat {

c10::intrusive_ptr<c10d::Store> connect_tcp_store(const std::string& host, int port, bool serve, int world_size,
                                                  std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(port);
  options.isServer = serve;
  options.numWorkers = static_cast<std::size_t>(world_size);
  options.waitWorkers = false;  // the job's agreement waits, saying for whom (dist/job_agreement.h)
  options.timeout = timeout;
  return c10::make_intrusive<c10d::TCPStore>(host, options);
}

c10::intrusive_ptr<C10dGroup> make_gloo_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world_size,
                                              const std::string& host, std::chrono::milliseconds timeout) {
#ifdef STEPSCOPE_HAS_GLOO
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  options->devices.push_back(host.empty() ? c10d::ProcessGroupGloo::createDefaultDevice()
                                          : c10d::ProcessGroupGloo::createDeviceForHostname(host));
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world_size, options);
#else
  (void)store, (void)rank, (void)world_size, (void)host, (void)timeout;
  throw std::runtime_error("this build has no Gloo: its LibTorch lacks it or the Gloo headers (libgloo-dev, or "
                           "STEPSCOPE_GLOO_INCLUDE_DIR for PyTorch's wheel) were missing when it was compiled");
#endif
}

bool gloo_has_bfloat16() { return TORCH_VERSION_MAJOR >= 2; }

bool has_nccl() {
#ifdef STEPSCOPE_WITH_NCCL
  return true;
#else
  return false;
#endif
}

c10::intrusive_ptr<C10dGroup> make_nccl_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world_size,
                                              std::chrono::milliseconds timeout) {
#ifdef STEPSCOPE_WITH_NCCL
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, world_size, options);
#else
  (void)store, (void)rank, (void)world_size, (void)timeout;
  throw std::runtime_error("NCCL needs a CUDA build of Stepscope (this one has no CUDA LibTorch)");
#endif
}

}  // namespace stepscope::compat
