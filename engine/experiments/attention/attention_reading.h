// The seeds' questions on attention's memory, answered from a sweep's table: which is the
// smallest configuration that ran out of memory, the accounting of what it needed (each term
// with its formula), and how what is kept for the backward grows with the sequence length.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attention/attention_types.h"
#include "schema/table.h"

namespace stepscope {

// The table's rows as results: configuration, status and the measures the reading needs.
// Rows of another schema, or that cannot be read, are left out.
std::vector<AttentionResult> attention_rows(const schema::Table& table);

// The out-of-memory row with the smallest estimated peak; none when nothing ran out.
std::optional<AttentionResult> smallest_out_of_memory(const std::vector<AttentionResult>& rows);

// How the measured memory in use before the backward grows with the sequence length for one
// implementation: the exponent k of m(s) = base + a*s^k through its three longest measured
// lengths at one head dim and precision. The base (what the device held before the case: a
// library's workspace, say) drops out of the differences. None with fewer than three such rows.
struct MemoryGrowth {
  AttentionImpl impl = AttentionImpl::naive;
  AttentionConfig from, to;
  double exponent = 0;
};
std::vector<MemoryGrowth> memory_growth(const std::vector<AttentionResult>& rows);

// Plain-language text: the smallest OOM configuration and its accounting, then the growth of
// what is saved for the backward. Empty for a table with no rows.
std::string attention_memory_reading(const schema::Table& table);

}  // namespace stepscope
