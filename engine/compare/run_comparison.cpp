#include "compare/run_comparison.h"

#include <algorithm>
#include <cmath>

#include "compare/kernel_comparison.h"
#include "compare/pair_text.h"
#include "compare/table_comparison.h"
#include "experiments/bench/bench_schema.h"

namespace stepscope::compare {

namespace {

schema::Table bench_table(const RunRecord& record) {
  std::vector<BenchResult> results;
  results.reserve(record.entries.size());
  for (const auto& e : record.entries) results.push_back(e.result);
  return bench_schema().table(results);
}

// A bench row's mean and spread are over its measured steps.
SampleCounts measured_steps(const RunRecord& record) {
  SampleCounts counts;
  for (const auto& e : record.entries) counts.push_back(static_cast<int64_t>(e.result.steps.size()));
  return counts;
}

// What a record holds, for the message when two hold nothing alike.
std::string contents(const RunRecord& record) {
  std::string text = record.entries.empty() ? "" : "bench configurations";
  for (const auto& t : record.tables) text += (text.empty() ? "" : ", ") + t.schema;
  return text.empty() ? "no results" : text;
}

void add_changes(std::string& all, const std::string& more) {
  if (more.empty() || all.find(more) != std::string::npos) return;
  all += (all.empty() ? "" : "; ") + more;
}

// Where a row goes in the output (see Comparison::rows), then by how far it moved.
int group_of(const ComparisonRow& r) {
  if (r.pairing == Pairing::only_a || r.pairing == Pairing::only_b) return 3;
  if (r.table == kKernelTotals) return 2;
  return ratio(r) ? 0 : 1;
}

double moved(const ComparisonRow& r) {
  if (r.table == kKernelTotals) return kernel_movement(r);
  const auto q = ratio(r);
  return q ? std::fabs(*q - 1) : 0;
}

}  // namespace

Comparison compare_runs(const RunRecord& a, const RunRecord& b) {
  Comparison out;
  bool shared = false;
  const auto table_alone = [&](const schema::Table& table, Pairing side, const std::string& why) {
    for (auto r : unpaired_rows(table, side)) {
      r.note = why;
      out.rows.push_back(std::move(r));
    }
  };

  if (!a.entries.empty() && !b.entries.empty()) {
    shared = true;
    const schema::Table ta = bench_table(a), tb = bench_table(b);
    const auto pairs = schema::pair_rows(ta, tb);
    add_changes(out.changes, changes_text(ta, schema::distinct_changes(pairs)));
    auto rows = compare_tables(ta, tb, pairs, measured_steps(a), measured_steps(b));
    for (const auto& pair : pairs) {
      if (!pair.a || !pair.b) continue;
      const auto& pa = a.entries[*pair.a].result.kernel_profile;
      const auto& pb = b.entries[*pair.b].result.kernel_profile;
      if (!pa || !pb) continue;
      // The pair's names and statuses, from its first measure row (every pair has its status).
      ComparisonRow named;
      named.configuration = identity_text(ta, tb, pair);
      named.pairing = pair.changes.empty() ? Pairing::same : Pairing::changed;
      named.changes = changes_text(ta, pair.changes);
      named.a_status = schema::text_of(ta.rows[*pair.a][static_cast<size_t>(ta.column_index("status"))]);
      named.b_status = schema::text_of(tb.rows[*pair.b][static_cast<size_t>(tb.column_index("status"))]);
      for (auto& k : compare_kernel_totals(*pa, *pb, named)) rows.push_back(std::move(k));
    }
    out.rows.insert(out.rows.end(), rows.begin(), rows.end());
  } else if (!a.entries.empty()) {
    table_alone(bench_table(a), Pairing::only_a, "B has no bench configurations");
  } else if (!b.entries.empty()) {
    table_alone(bench_table(b), Pairing::only_b, "A has no bench configurations");
  }

  // Other experiments' tables: each of A's with B's first table of its schema.
  std::vector<bool> b_used(b.tables.size(), false);
  for (const auto& ta : a.tables) {
    const auto match = std::find_if(b.tables.begin(), b.tables.end(), [&](const schema::Table& t) {
      return t.schema == ta.schema && !b_used[static_cast<size_t>(&t - b.tables.data())];
    });
    if (match == b.tables.end()) {
      table_alone(ta, Pairing::only_a, "B has no " + ta.schema + " table");
      continue;
    }
    shared = true;
    b_used[static_cast<size_t>(match - b.tables.begin())] = true;
    const auto pairs = schema::pair_rows(ta, *match);
    add_changes(out.changes, changes_text(ta, schema::distinct_changes(pairs)));
    for (auto& r : compare_tables(ta, *match, pairs)) out.rows.push_back(std::move(r));
  }
  for (size_t t = 0; t < b.tables.size(); ++t) {
    if (!b_used[t]) table_alone(b.tables[t], Pairing::only_b, "A has no " + b.tables[t].schema + " table");
  }

  if (!shared) {
    throw CompareError("the runs hold no results of the same kind: A holds " + contents(a) + ", B holds " +
                       contents(b));
  }
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const ComparisonRow& x, const ComparisonRow& y) {
    const int gx = group_of(x), gy = group_of(y);
    return gx != gy ? gx < gy : moved(x) > moved(y);
  });
  return out;
}

}  // namespace stepscope::compare
