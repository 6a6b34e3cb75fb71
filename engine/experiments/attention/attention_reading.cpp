#include "experiments/attention/attention_reading.h"

#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "attention/attention_memory.h"
#include "experiments/attention/attention_schema.h"
#include "schema/schema.h"
#include "schema/value_format.h"

namespace stepscope {

namespace {

std::string bytes_text(int64_t bytes) {
  return schema::display_text(schema::Value(bytes), schema::ColumnKind::bytes);
}

// The first `count` sentences (ended by ". "): a driver's message is long.
std::string first_sentences(const std::string& text, int count) {
  size_t end = 0;
  for (int i = 0; i < count; ++i) {
    const size_t next = text.find(". ", end);
    if (next == std::string::npos) return text;
    end = next + 1;
  }
  return text.substr(0, end);
}

int64_t integer_at(const schema::Table& table, size_t row, const char* key) {
  const int c = table.column_index(key);
  if (c < 0) return -1;
  const auto number = schema::number_of(table.rows[row][static_cast<size_t>(c)]);
  return number ? static_cast<int64_t>(*number) : -1;
}

}  // namespace

std::vector<AttentionResult> attention_rows(const schema::Table& table) {
  std::vector<AttentionResult> rows;
  if (table.schema != attention_schema().id) return rows;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    try {
      AttentionResult r = schema::read_row(attention_schema(), table, i);
      r.memory_before_backward_bytes = integer_at(table, i, "mem_before_bwd_bytes");
      r.peak_memory_bytes = integer_at(table, i, "peak_bytes");
      const int message = table.column_index("message");
      if (message >= 0) r.message = schema::text_of(table.rows[i][static_cast<size_t>(message)]);
      rows.push_back(r);
    } catch (const std::exception&) {
      // A row this build cannot read (an unknown implementation from a newer build).
    }
  }
  return rows;
}

std::optional<AttentionResult> smallest_out_of_memory(const std::vector<AttentionResult>& rows) {
  std::optional<AttentionResult> best;
  int64_t best_peak = 0;
  for (const auto& r : rows) {
    if (r.status != RunStatus::out_of_memory) continue;
    const int64_t peak = attention_memory(r.config).peak_bytes();
    if (!best || peak < best_peak) {
      best = r;
      best_peak = peak;
    }
  }
  return best;
}

namespace {

// The k > 0 with (s3^k - s2^k) / (s2^k - s1^k) = ratio (s1 < s2 < s3); that quotient grows with
// k, so bisection finds it. Zero when the memory did not grow.
double growth_exponent(double s1, double s2, double s3, double ratio) {
  const auto quotient = [&](double k) { return (std::pow(s3, k) - std::pow(s2, k)) / (std::pow(s2, k) - std::pow(s1, k)); };
  if (!(ratio > 0) || !std::isfinite(ratio)) return 0;
  double low = 1e-3, high = 8;
  if (ratio <= quotient(low)) return low;
  if (ratio >= quotient(high)) return high;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (low + high);
    (quotient(mid) < ratio ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

}  // namespace

std::vector<MemoryGrowth> memory_growth(const std::vector<AttentionResult>& rows) {
  // Per implementation, head dim and precision (and the rest of the shape): the lengths measured.
  using Key = std::tuple<AttentionImpl, int64_t, Precision, int64_t, int64_t, bool>;
  std::map<Key, std::map<int64_t, const AttentionResult*>> by_key;
  for (const auto& r : rows) {
    if (r.status != RunStatus::ok || r.memory_before_backward_bytes <= 0) continue;
    const auto& c = r.config;
    by_key[{c.impl, c.head_dim, c.precision, c.batch, c.heads, c.causal}][c.seq] = &r;
  }
  std::map<AttentionImpl, MemoryGrowth> best;  // the longest lengths per implementation
  for (const auto& [key, by_seq] : by_key) {
    if (by_seq.size() < 3) continue;
    const AttentionResult& r3 = *std::prev(by_seq.end())->second;
    const AttentionResult& r2 = *std::prev(by_seq.end(), 2)->second;
    const AttentionResult& r1 = *std::prev(by_seq.end(), 3)->second;
    const auto m = [](const AttentionResult& r) { return static_cast<double>(r.memory_before_backward_bytes); };
    const double ratio = (m(r3) - m(r2)) / (m(r2) - m(r1));
    MemoryGrowth g{std::get<0>(key), r1.config, r3.config,
                   growth_exponent(static_cast<double>(r1.config.seq), static_cast<double>(r2.config.seq),
                                   static_cast<double>(r3.config.seq), ratio)};
    auto it = best.find(g.impl);
    if (it == best.end() || g.to.seq > it->second.to.seq) best[g.impl] = g;
  }
  std::vector<MemoryGrowth> out;
  for (const auto& [impl, g] : best) out.push_back(g);
  return out;
}

std::string attention_memory_reading(const schema::Table& table) {
  const auto rows = attention_rows(table);
  if (rows.empty()) return {};
  std::ostringstream text;
  if (const auto oom_row = smallest_out_of_memory(rows)) {
    const AttentionConfig& oom = oom_row->config;
    const AttentionMemory m = attention_memory(oom);
    text << "Smallest configuration out of memory: " << describe(oom) << ".\n";
    if (!oom_row->message.empty()) text << "The device said: " << first_sentences(oom_row->message, 2) << "\n";
    text << "Its accounting, with " << memory_symbols(oom) << ":\n";
    for (const MemoryTerm& term : m.terms()) {
      text << "  " << term.what << ": " << term.formula << " = " << bytes_text(term.bytes) << "\n";
    }
    text << "  Peak, every term at once: " << bytes_text(m.peak_bytes()) << "; before the backward (inputs and what is kept): "
         << bytes_text(m.before_backward_bytes()) << ".\n";
  } else {
    text << "No configuration ran out of memory.\n";
  }
  const auto growth = memory_growth(rows);
  if (!growth.empty()) {
    text << "Memory in use before the backward, measured, grows with the sequence length as:\n";
    for (const auto& g : growth) {
      char exponent[32];
      std::snprintf(exponent, sizeof exponent, "%.2f", g.exponent);
      text << "  " << to_string(g.impl) << ": s^" << exponent << " (seq " << g.from.seq << " to " << g.to.seq << ", d "
           << g.to.head_dim << ", " << to_string(g.to.precision) << "); expected "
           << attention_memory(g.to).saved.formula << "\n";
    }
    text << "Naive attention keeps the b*h*s^2 probabilities; recomputing them in the backward from the "
            "logsumexp per query (FlashAttention) removes that quadratic term.\n";
  }
  return text.str();
}

}  // namespace stepscope
