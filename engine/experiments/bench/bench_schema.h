// The step benchmark's result row: every column of its CSV, JSON run record, console and GUI
// tables, declared once.
#pragma once

#include "runners/bench_types.h"
#include "schema/schema.h"

namespace stepscope {

const schema::Schema<BenchResult>& bench_schema();

// Phases of a step as the schema names them ("total", "forward", "backward", "optimizer").
enum class StepPhase { total, forward, backward, optimizer };
std::string to_string(StepPhase phase);
const PhaseStats& stats_of(const BenchResult& result, StepPhase phase);
PhaseStats& stats_of(BenchResult& result, StepPhase phase);

}  // namespace stepscope
