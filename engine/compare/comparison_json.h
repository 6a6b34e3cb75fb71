// A comparison as JSON for CI tools: the two files, the settings that differ, the gate's rule
// and verdict, and the rows under their columns (io/table_json.h):
// {"format": "stepscope-compare", "version": 1, "a": "...", "b": "...", "changes": "...",
//  "rule": "...", "verdict": "FAIL: ...", "regressions": 1, "table": {schema, columns, rows}}
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "compare/regression_gate.h"

namespace stepscope::compare {

nlohmann::json comparison_to_json(const Comparison& comparison, const GateRule& rule, const std::string& a_name,
                                  const std::string& b_name);

}  // namespace stepscope::compare
