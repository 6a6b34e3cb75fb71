// Hand-built allocation logs for the memory timeline's tests: a builder, one training step
// whose totals after each event are written beside it, and accessors for categories and peaks.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "profiling/memory_timeline.h"

namespace stepscope::profiling::timeline_test {

using C = MemoryCategory;

struct LogBuilder {
  AllocationLog log;
  std::string phase;  // innermost range for the next events

  LogBuilder& alloc(int64_t t, uint64_t address, int64_t bytes, int64_t reserved = -1) {
    log.events.push_back({t, address, bytes, reserved, 0, 0, phase, -1, false});
    return *this;
  }
  LogBuilder& free(int64_t t, uint64_t address, int64_t bytes) { return alloc(t, address, -bytes); }
  LogBuilder& label(int64_t t, uint64_t address, C category, int64_t tensor_bytes = -1) {
    log.labels.push_back({t, address, category, tensor_bytes});
    return *this;
  }
  LogBuilder& mark(int64_t t, const std::string& name, int step, bool warmup = false) {
    log.phases.push_back({t, name, step, warmup});
    return *this;
  }
};

inline int64_t at(const MemoryPoint& p, C c) { return p.bytes_by_category[category_index(c)]; }
inline int64_t at(const MemoryPeak& p, C c) { return p.bytes_by_category[category_index(c)]; }

inline CategoryBytes bytes(std::initializer_list<std::pair<C, int64_t>> parts) {
  CategoryBytes out{};
  for (const auto& [c, b] : parts) out[category_index(c)] = b;
  return out;
}

inline const MemoryPeak* find_peak(const MemoryTimeline& t, const std::string& label) {
  for (const auto& p : t.peaks) {
    if (p.label == label) return &p;
  }
  return nullptr;
}

inline std::vector<std::string> peak_labels(const MemoryTimeline& t) {
  std::vector<std::string> labels;
  for (const auto& p : t.peaks) labels.push_back(p.label);
  return labels;
}

// One training step; the comments give the allocated total after each event.
inline AllocationLog training_step_log() {
  LogBuilder b;
  b.alloc(10, 0x1000, 1000).label(11, 0x1000, C::parameter);  // 0: 1000
  b.alloc(20, 0x2000, 100).label(21, 0x2000, C::input);       // 1: 1100
  b.alloc(30, 0x3000, 7);                                      // 2: 1107, never labelled: other
  b.free(35, 0x9000, 500);                                     // 3: 1107, unknown address
  b.mark(100, "forward", 0);
  b.phase = "forward";
  b.alloc(110, 0x4000, 400);                                   // 4: 1507, activation
  b.phase = "softmax";
  b.alloc(120, 0x5000, 300);                                   // 5: 1807, temporary
  b.free(130, 0x5000, 300);                                    // 6: 1507
  b.phase = "forward";
  b.alloc(140, 0x6000, 200);                                   // 7: 1707, activation
  b.mark(200, "backward", 0);
  b.phase = "backward";
  b.alloc(210, 0x7000, 1000);                                  // 8: 2707, gradient (labelled at 260)
  b.free(220, 0x4000, 400);                                    // 9: 2307
  b.alloc(230, 0x8000, 50);                                    // 10: 2357, temporary
  b.free(240, 0x8000, 50);                                     // 11: 2307
  b.free(250, 0x6000, 200);                                    // 12: 2107
  b.label(260, 0x7000, C::gradient);
  b.mark(300, "optimizer step", 0);
  b.phase = "optimizer step";
  b.alloc(310, 0xA000, 1000).label(311, 0xA000, C::optimizer_state);  // 13: 3107
  b.alloc(320, 0xB000, 1000).label(321, 0xB000, C::optimizer_state);  // 14: 4107
  b.alloc(330, 0xC000, 500);                                           // 15: 4607, temporary
  b.free(340, 0xC000, 500);                                            // 16: 4107
  b.mark(400, "step end", 0);
  b.phase = "";
  b.free(410, 0x2000, 100);                                    // 17: 4007
  b.alloc(420, 0x5000, 300).label(421, 0x5000, C::input);      // 18: 4307, reused address
  b.label(430, 0x4000, C::activation);                         // freed: unmatched
  return b.log;
}

}  // namespace stepscope::profiling::timeline_test
