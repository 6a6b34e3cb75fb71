// Measured passes split into rounds, with the cases of one comparison (the implementations of
// one shape) run round by round in a rotating order. A drift of the machine during a sweep
// (GPU clocks and power state, host load) then falls on every case alike instead of on
// whichever case ran at the time; Google Benchmark interleaves its repetitions for the same
// reason. Plain C++: the plan is testable without a device.
#pragma once

#include <vector>

namespace stepscope {

// One run of one case: which round, its warm-up passes and its share of the measured passes.
struct RoundSlot {
  int case_index = 0;  // within the comparison
  int round = 0;
  int warmup = 0;
  int measured = 0;
};

// Warm-up passes of the rounds after the first: each round builds its inputs afresh, so one or
// two passes refill the allocator's cache before timing resumes.
constexpr int kRewarmPasses = 2;

// `measured` passes split into `rounds` shares differing by at most one, the larger first.
std::vector<int> passes_per_round(int measured, int rounds);

// The runs of `cases` cases over `rounds` rounds: round r starts with case r mod cases, so each
// case opens a round equally often. Requires 1 <= rounds <= measured.
std::vector<RoundSlot> interleaved_rounds(int cases, int rounds, int warmup, int measured);

// Rounds when the user gave none: 5 when the sweep compares implementations (at most one per
// measured pass), else 1, the passes back to back as before.
int default_rounds(int implementations, int measured);

}  // namespace stepscope
