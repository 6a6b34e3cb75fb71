// Activity that came before what attributes it (its launch's API record, the operator call that
// launched it): retried on every pass; beyond a bound, or at the end, the oldest is given up and
// counted as unattributed. Shared by the kernel and the operator summary builders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace stepscope::profiling {

// `attribute(activity)` is true when it could place the activity (which then leaves the list).
template <class Activity, class Attribute>
void attribute_pending(std::vector<Activity>& pending, Attribute&& attribute, size_t max_pending, bool final,
                       uint64_t& unattributed) {
  std::vector<Activity> waiting;
  for (const auto& activity : pending) {
    if (!attribute(activity)) waiting.push_back(activity);
  }
  if (final || waiting.size() > max_pending) {
    const size_t keep = final ? 0 : max_pending;
    unattributed += waiting.size() - keep;
    waiting.erase(waiting.begin(), waiting.end() - static_cast<std::ptrdiff_t>(keep));
  }
  pending = std::move(waiting);
}

}  // namespace stepscope::profiling
