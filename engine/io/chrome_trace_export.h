// A profiled run as a Chrome trace (JSON object form), for Perfetto or chrome://tracing.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "profiling/activity_records.h"
#include "profiling/trace_window.h"

namespace stepscope {

// Writes {"displayTimeUnit":"ns","otherData":{...},"traceEvents":[...]}:
//  - one CPU process named `process_name`, a track per thread ("thread <id>"): closed CPU
//    ranges as "X" events (cat "range"; args step, warmup, range id, parent id; open ranges
//    are left out) and CUDA API calls (cat "cuda_runtime" or "cuda_driver");
//  - a process per GPU device ("GPU <n>"), a track per stream ("stream <id>"): kernels
//    (cat "kernel", named by short_kernel_name; args name (demangled), grid, block,
//    correlation id) and copies/sets (cat "memcpy"/"memset", "Memcpy HtoD", "Memset", ...);
//  - a flow arrow (cat "launch") from each API call to every kernel or copy with its
//    correlation id (ids > 0 only): "s" at the call's start on its thread, "f" with "bp":"e"
//    at the kernel's start on its stream. Flow ids are numbered, not correlation ids, since a
//    graph launch gives many kernels one correlation id.
// All input times are ns on one clock. ts and dur are µs (fractional) from the earliest event
// start, written as otherData.origin_ns: doubles of absolute epoch-scale times would lose the
// sub-microsecond digits. Events are sorted by ts per track (longer first on ties).
// Invalid UTF-8 in names is replaced by U+FFFD so the output is always valid JSON.
void write_chrome_trace(std::ostream& out, const std::vector<profiling::RangeRecord>& ranges,
                        const profiling::ActivityBatch& activity, const std::string& process_name);
// The same with the window's operator calls as well, where the operator profiler ran: "X"
// events (cat "cpu_op", named by the operator; args "call id", "parent call id", "input
// shapes") on the track of the thread that ran them, beside its ranges; each kernel or copy
// whose launch carried a call's id (the window's correlations) names it in its args
// ("operator", "operator call id").
void write_chrome_trace(std::ostream& out, const profiling::TraceWindow& window, const std::string& process_name);

}  // namespace stepscope
