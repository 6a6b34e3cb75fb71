#include "compare/comparison_json.h"

#include "compare/comparison_schema.h"
#include "io/table_json.h"

namespace stepscope::compare {

nlohmann::json comparison_to_json(const Comparison& comparison, const GateRule& rule, const std::string& a_name,
                                  const std::string& b_name) {
  return {{"format", "stepscope-compare"},
          {"version", 1},
          {"a", a_name},
          {"b", b_name},
          {"changes", comparison.changes},
          {"rule", rule_text(rule)},
          {"verdict", verdict_text(comparison, rule)},
          {"regressions", count_regressions(comparison)},
          {"table", table_to_json(comparison_table(comparison))}};
}

}  // namespace stepscope::compare
