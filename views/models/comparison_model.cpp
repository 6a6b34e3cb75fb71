#include "models/comparison_model.h"

#include <cmath>
#include <map>

#include "models/format.h"

namespace stepscope::views {

namespace {

QString value_text(double value, ComparedUnit unit) {
  switch (unit) {
    case ComparedUnit::milliseconds: return QString::number(value, 'f', 2) + " ms";
    case ComparedUnit::nanoseconds: return format_duration_ns(value);
    case ComparedUnit::bytes: return format_bytes(static_cast<int64_t>(value));
    case ComparedUnit::per_second: return format_significant(value) + "/s";
    case ComparedUnit::count: return format_significant(value);
  }
  return format_significant(value);
}

// A difference keeps its sign in every unit.
QString difference_text(double value, ComparedUnit unit) {
  const QString magnitude = value_text(std::fabs(value), unit);
  return value > 0 ? "+" + magnitude : value < 0 ? "-" + magnitude : magnitude;
}

std::optional<double> known(double value) { return value >= 0 && std::isfinite(value) ? std::optional(value) : std::nullopt; }

}  // namespace

ComparisonModel::ComparisonModel(QObject* parent)
    : TableModel({{"item", false, {}, tr("Item")},
                  {"measure", false, {}, tr("Measure")},
                  {"a", true, tr("Run A"), tr("A")},
                  {"b", true, tr("Run B"), tr("B")},
                  {"b_minus_a", true, tr("B - A, in the measure's unit"), tr("B - A")},
                  {"b_over_a", true, tr("B / A: above 1, B is larger"), tr("B / A")}},
                 parent) {}

int ComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

void ComparisonModel::set_rows(std::vector<ComparisonRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

TableModel::Cell ComparisonModel::cell(int row, int column) const {
  const ComparisonRow& r = rows_[static_cast<size_t>(row)];
  switch (column) {
    case Item: return text_cell(r.item);
    case Measure: return text_cell(r.measure);
    case A: return r.a ? Cell{value_text(*r.a, r.unit), *r.a} : missing_cell();
    case B: return r.b ? Cell{value_text(*r.b, r.unit), *r.b} : missing_cell();
    case Difference: {
      if (!r.a || !r.b) return missing_cell();
      const double d = *r.b - *r.a;
      return {difference_text(d, r.unit), d};
    }
    case Ratio: {
      if (!r.a || !r.b || *r.a == 0) return missing_cell();
      const double q = *r.b / *r.a;
      return {QString::number(q, 'f', 3), q};
    }
  }
  return missing_cell();
}

std::vector<ComparisonRow> compare_benchmarks(const std::vector<BenchResult>& a, const std::vector<BenchResult>& b) {
  std::vector<std::string> order;  // A's configurations first, then B's new ones
  std::map<std::string, const BenchResult*> in_a, in_b;
  for (const auto& r : a) {
    if (in_a.emplace(describe(r.config), &r).second) order.push_back(describe(r.config));
  }
  for (const auto& r : b) {
    if (in_b.emplace(describe(r.config), &r).second && !in_a.count(describe(r.config))) {
      order.push_back(describe(r.config));
    }
  }
  const auto phase = [](const BenchResult* r, PhaseStats BenchResult::*stats) -> std::optional<double> {
    if (!r || r->status != RunStatus::ok || (r->*stats).count == 0) return std::nullopt;
    return (r->*stats).mean_ms;
  };
  std::vector<ComparisonRow> rows;
  for (const auto& key : order) {
    const BenchResult* ra = in_a.count(key) ? in_a[key] : nullptr;
    const BenchResult* rb = in_b.count(key) ? in_b[key] : nullptr;
    const QString item = QString::fromStdString(key);
    for (auto [name, stats] : {std::pair{"step (ms)", &BenchResult::total}, {"forward (ms)", &BenchResult::forward},
                               {"backward (ms)", &BenchResult::backward}, {"optimizer (ms)", &BenchResult::optimizer}}) {
      ComparisonRow row{item, name, ComparedUnit::milliseconds, phase(ra, stats), phase(rb, stats)};
      if (row.a || row.b) rows.push_back(row);
    }
    const auto ok = [](const BenchResult* r) { return r && r->status == RunStatus::ok; };
    rows.push_back({item, "tokens/s", ComparedUnit::per_second, ok(ra) ? known(ra->tokens_per_second) : std::nullopt,
                    ok(rb) ? known(rb->tokens_per_second) : std::nullopt});
    rows.push_back({item, "peak memory", ComparedUnit::bytes,
                    ok(ra) ? known(static_cast<double>(ra->peak_memory_bytes)) : std::nullopt,
                    ok(rb) ? known(static_cast<double>(rb->peak_memory_bytes)) : std::nullopt});
  }
  return rows;
}

std::vector<ComparisonRow> compare_kernels(const profiling::KernelProfile* a, const profiling::KernelProfile* b,
                                           const std::string& range) {
  const auto* ra = a ? profiling::find_range(*a, range) : nullptr;
  const auto* rb = b ? profiling::find_range(*b, range) : nullptr;
  std::map<std::string, std::pair<const profiling::KernelStats*, const profiling::KernelStats*>> kernels;
  std::vector<std::string> order;
  for (const auto* summary : {ra, rb}) {
    if (!summary) continue;
    for (const auto& k : summary->kernels) {
      auto [it, inserted] = kernels.try_emplace(k.name);
      if (inserted) order.push_back(k.name);
      (summary == ra ? it->second.first : it->second.second) = &k;
    }
  }
  std::vector<ComparisonRow> rows;
  for (const auto& name : order) {
    const auto [ka, kb] = kernels[name];
    const QString item = QString::fromStdString((ka ? ka : kb)->short_name.empty() ? name : (ka ? ka : kb)->short_name);
    const auto total = [](const profiling::KernelStats* k) {
      return k ? std::optional(static_cast<double>(k->total_ns)) : std::nullopt;
    };
    const auto per_step = [](const profiling::KernelStats* k) {
      return k ? std::optional(k->instances_per_step) : std::nullopt;
    };
    rows.push_back({item, "total time", ComparedUnit::nanoseconds, total(ka), total(kb)});
    rows.push_back({item, "instances/step", ComparedUnit::count, per_step(ka), per_step(kb)});
  }
  return rows;
}

std::vector<ComparisonRow> compare_memory_peaks(const profiling::MemoryTimeline* a, const profiling::MemoryTimeline* b) {
  std::vector<std::string> order;
  std::map<std::string, std::pair<const profiling::MemoryPeak*, const profiling::MemoryPeak*>> peaks;
  for (const auto* t : {a, b}) {
    if (!t) continue;
    for (const auto& p : t->peaks) {
      auto [it, inserted] = peaks.try_emplace(p.label);
      if (inserted) order.push_back(p.label);
      (t == a ? it->second.first : it->second.second) = &p;
    }
  }
  std::vector<ComparisonRow> rows;
  for (const auto& label : order) {
    const auto [pa, pb] = peaks[label];
    const QString item = QString::fromStdString(label);
    const auto bytes = [](const profiling::MemoryPeak* p, std::optional<profiling::MemoryCategory> c) {
      if (!p) return std::optional<double>();
      return std::optional(static_cast<double>(c ? p->bytes_by_category[profiling::category_index(*c)] : p->allocated_bytes));
    };
    rows.push_back({item, "allocated", ComparedUnit::bytes, bytes(pa, std::nullopt), bytes(pb, std::nullopt)});
    for (const auto c : profiling::all_memory_categories()) {
      const auto va = bytes(pa, c), vb = bytes(pb, c);
      if (va.value_or(0) == 0 && vb.value_or(0) == 0) continue;
      rows.push_back({item, QString::fromStdString(profiling::to_string(c)), ComparedUnit::bytes, va, vb});
    }
  }
  return rows;
}

}  // namespace stepscope::views
