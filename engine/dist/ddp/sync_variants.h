// The four GradientSync implementations, each in its own file; make_gradient_sync picks one.
#pragma once

#include "dist/ddp/gradient_sync.h"

namespace stepscope::dist::detail {

std::unique_ptr<GradientSync> make_naive_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                              const GradientSyncOptions& options);
std::unique_ptr<GradientSync> make_flat_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                             const GradientSyncOptions& options);
std::unique_ptr<GradientSync> make_overlap_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                                const GradientSyncOptions& options);
std::unique_ptr<GradientSync> make_bucketed_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                                 const GradientSyncOptions& options);

}  // namespace stepscope::dist::detail
