#include "experiments/ddp/ddp_memory_schema.h"

#include <numeric>

#include "experiments/ddp/ddp_row_fields.h"

namespace stepscope {

using schema::Column;
using schema::ColumnKind;
using schema::ColumnRole;
using schema::Value;
using schema::value_if;

namespace {


schema::Schema<DdpMemoryRow> make_schema() {
  using Row = DdpMemoryRow;
  schema::Schema<Row> s{"ddp.memory", {}};
  auto& f = s.fields;
  add_ddp_row_fields(s);
  f.push_back({Column{"rank", "Rank", ColumnKind::integer, ColumnRole::identity},
               [](const Row& r) { return Value(int64_t{r.rank}); },
               [](Row& r, const Value& v) { r.rank = static_cast<int>(schema::integer_of(v)); }});
  f.push_back({Column{"point", "When", ColumnKind::text, ColumnRole::identity,
                      "after_init, before_optimizer_step or after_optimizer_step (the last measured step)"},
               [](const Row& r) { return Value(to_string(r.point)); },
               [](Row& r, const Value& v) { r.point = parse_ddp_memory_point(schema::text_of(v)); }});
  f.push_back({Column{"total_bytes", "Live", ColumnKind::bytes, ColumnRole::measure, "Every category"},
               [](const Row& r) { return Value(std::accumulate(r.bytes.begin(), r.bytes.end(), int64_t{0})); }});
  for (size_t k = 0; k < profiling::kMemoryCategoryCount; ++k) {
    const auto category = static_cast<profiling::MemoryCategory>(k);
    const std::string name = profiling::to_string(category);
    std::string key = name + "_bytes";
    for (char& c : key) c = c == ' ' ? '_' : c;
    f.push_back({Column{key, name, ColumnKind::bytes, ColumnRole::measure},
                 [k](const Row& r) { return Value(r.bytes[k]); },
                 [k](Row& r, const Value& v) { r.bytes[k] = schema::integer_of(v); }});
  }
  return s;
}

}  // namespace

const schema::Schema<DdpMemoryRow>& ddp_memory_schema() {
  static const auto schema = make_schema();
  return schema;
}

std::vector<DdpMemoryRow> memory_rows(const DdpResult& r) {
  std::vector<DdpMemoryRow> rows;
  for (size_t p = 0; p < r.memory.size() && p < std::size(kDdpMemoryPoints); ++p) {
    rows.push_back({r.config, r.rank, kDdpMemoryPoints[p], r.memory[p]});
  }
  return rows;
}

}  // namespace stepscope
