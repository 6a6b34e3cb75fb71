// The GradientSync implementations (four variants, bucketed twice), each in its own file; make_gradient_sync picks one.
#pragma once

#include "distributed/ddp/gradient_sync.h"

namespace stepscope::distributed::detail {

std::unique_ptr<GradientSync> make_naive_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                              const GradientSyncOptions& options);
std::unique_ptr<GradientSync> make_flat_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                             const GradientSyncOptions& options);
std::unique_ptr<GradientSync> make_overlap_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                                const GradientSyncOptions& options);
std::unique_ptr<GradientSync> make_bucketed_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                                 const GradientSyncOptions& options);
// bucketed over options.gradient_buffer (validated there).
std::unique_ptr<GradientSync> make_buffer_bucketed_sync(std::vector<at::Tensor> parameters, Communicator& comm,
                                                        const GradientSyncOptions& options);

}  // namespace stepscope::distributed::detail
