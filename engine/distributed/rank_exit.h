// Exit statuses a rank of a job ends with, beside the CLI's own (0 ok, 1 failed, 2 bad options,
// 130 interrupted), so that a launcher can tell the rank at fault from those it took along.
#pragma once

namespace stepscope::distributed {

// The rank ended because another rank of its job failed, was interrupted or left.
inline constexpr int kExitPeerEnded = 3;

}  // namespace stepscope::distributed
