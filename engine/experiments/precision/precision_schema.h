// The precision lab's two tables, declared once for CSV, run records, the console and the app,
// and the plain-language reading of each that the CLI prints and the app shows beside it.
#pragma once

#include <string>

#include "experiments/precision/precision_results.h"
#include "schema/schema.h"

namespace stepscope::precision {

// case,accumulator,addend,method,additions,result,exact,abs_error,explanation; the result with
// 9 significant digits in files, as PyTorch prints a float32 in full.
const schema::Schema<AccumulationCase>& accumulation_schema();
// tensor,kind,dtype
const schema::Schema<TensorDtype>& autocast_schema();

// A few sentences on what a table shows, read from the table itself (so a reopened run reads
// the same): which sums drift and why; which tensors autocast lowers and which stay float32.
std::string accumulation_reading(const schema::Table& table);
std::string autocast_reading(const schema::Table& table);

}  // namespace stepscope::precision
