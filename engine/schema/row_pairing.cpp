#include "schema/row_pairing.h"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>

namespace stepscope::schema {

namespace {

// An identity column of A and the index of B's column of the same key (-1: B has none).
struct IdentityColumn {
  size_t a = 0;
  int b = -1;
};

std::vector<IdentityColumn> identity_columns(const Table& a, const Table& b) {
  std::vector<IdentityColumn> out;
  for (size_t c = 0; c < a.columns.size(); ++c) {
    if (a.columns[c].role == ColumnRole::identity) out.push_back({c, b.column_index(a.columns[c].key)});
  }
  return out;
}

Value cell(const Table& table, size_t row, int column) {
  return column < 0 ? Value{} : table.rows[row][static_cast<size_t>(column)];
}

std::vector<Value> key_of_a(const Table& a, size_t row, const std::vector<IdentityColumn>& ids) {
  std::vector<Value> key;
  for (const auto& id : ids) key.push_back(a.rows[row][id.a]);
  return key;
}

std::vector<Value> key_of_b(const Table& b, size_t row, const std::vector<IdentityColumn>& ids) {
  std::vector<Value> key;
  for (const auto& id : ids) key.push_back(cell(b, row, id.b));
  return key;
}

std::vector<SettingChange> changes_between(const Table& a, size_t ra, const Table& b, size_t rb,
                                           const std::vector<IdentityColumn>& ids) {
  std::vector<SettingChange> out;
  for (const auto& id : ids) {
    Value vb = cell(b, rb, id.b);
    if (a.rows[ra][id.a] != vb) out.push_back({id.a, a.rows[ra][id.a], std::move(vb)});
  }
  return out;
}

// Beyond this many candidate pairs, rows that differ pair only by identity (a quadratic search
// over two sweeps of thousands of rows each would stall the window).
constexpr size_t kMaxCandidates = 4'000'000;

}  // namespace

std::vector<RowPair> pair_rows(const Table& a, const Table& b) {
  const auto ids = identity_columns(a, b);
  std::vector<std::optional<size_t>> partner(a.rows.size());
  std::vector<bool> taken(b.rows.size(), false);

  // The same configuration in both.
  std::map<std::vector<Value>, std::deque<size_t>> b_rows;
  for (size_t r = 0; r < b.rows.size(); ++r) b_rows[key_of_b(b, r, ids)].push_back(r);
  for (size_t r = 0; r < a.rows.size(); ++r) {
    auto it = b_rows.find(key_of_a(a, r, ids));
    if (it == b_rows.end() || it->second.empty()) continue;
    partner[r] = it->second.front();
    taken[it->second.front()] = true;
    it->second.pop_front();
  }

  std::vector<size_t> free_a, free_b;
  for (size_t r = 0; r < a.rows.size(); ++r) {
    if (!partner[r]) free_a.push_back(r);
  }
  for (size_t r = 0; r < b.rows.size(); ++r) {
    if (!taken[r]) free_b.push_back(r);
  }

  // Runs that share configurations differ in which ran (a sweep extended): the rest stay alone.
  const bool shared = free_a.size() < a.rows.size();
  // Else a setting was changed between them. One setting changed: the change most rows share
  // first, so that a sweep run again at another context pairs each row with its own, not with a
  // neighbour that differs in batch.
  if (!shared && !free_a.empty() && !free_b.empty() && free_a.size() * free_b.size() <= kMaxCandidates) {
    using Signature = std::tuple<size_t, Value, Value>;
    struct Candidate {
      size_t a, b;
      Signature signature;
    };
    std::vector<Candidate> candidates;
    std::map<Signature, size_t> count;
    for (size_t ra : free_a) {
      for (size_t rb : free_b) {
        auto changes = changes_between(a, ra, b, rb, ids);
        if (changes.size() != 1) continue;
        Signature s{changes[0].column, changes[0].a, changes[0].b};
        ++count[s];
        candidates.push_back({ra, rb, std::move(s)});
      }
    }
    std::stable_sort(candidates.begin(), candidates.end(), [&](const Candidate& x, const Candidate& y) {
      return count[x.signature] > count[y.signature];
    });
    for (const auto& c : candidates) {
      if (partner[c.a] || taken[c.b]) continue;
      partner[c.a] = c.b;
      taken[c.b] = true;
    }
    free_a.erase(std::remove_if(free_a.begin(), free_a.end(), [&](size_t r) { return partner[r].has_value(); }),
                 free_a.end());
    free_b.erase(std::remove_if(free_b.begin(), free_b.end(), [&](size_t r) { return taken[r]; }), free_b.end());
  }

  // Two single runs, however many settings differ: that is the comparison asked for.
  if (!shared && free_a.size() == 1 && free_b.size() == 1) {
    partner[free_a.front()] = free_b.front();
    taken[free_b.front()] = true;
  }

  std::vector<RowPair> pairs;
  for (size_t r = 0; r < a.rows.size(); ++r) {
    RowPair pair{r, partner[r], {}};
    if (partner[r]) pair.changes = changes_between(a, r, b, *partner[r], ids);
    pairs.push_back(std::move(pair));
  }
  for (size_t r = 0; r < b.rows.size(); ++r) {
    if (!taken[r]) pairs.push_back({std::nullopt, r, {}});
  }
  return pairs;
}

std::vector<SettingChange> distinct_changes(const std::vector<RowPair>& pairs) {
  std::vector<SettingChange> out;
  for (const auto& pair : pairs) {
    for (const auto& change : pair.changes) {
      const bool seen = std::any_of(out.begin(), out.end(), [&](const SettingChange& c) {
        return c.column == change.column && c.a == change.a && c.b == change.b;
      });
      if (!seen) out.push_back(change);
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const SettingChange& x, const SettingChange& y) { return x.column < y.column; });
  return out;
}

}  // namespace stepscope::schema
