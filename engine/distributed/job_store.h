// What the ranks of one job say to each other outside their collectives: who joined with which
// settings, whether the job may start, and why it ended early. Behind this interface the
// agreement and the supervision are tested on the CPU with an in-process store; c10d's TCPStore
// (the rendezvous every rank already reaches) is the real one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace stepscope::distributed {

class JobStore {
 public:
  virtual ~JobStore() = default;
  virtual void set(const std::string& key, const std::string& value) = 0;
  // Never blocks for the key: nullopt while nobody has set it.
  virtual std::optional<std::string> get_if_set(const std::string& key) = 0;
  // Adds `delta` to the counter `key` (0 when new) and returns the sum; atomic across ranks.
  virtual int64_t add(const std::string& key, int64_t delta) = 0;
};

}  // namespace stepscope::distributed
