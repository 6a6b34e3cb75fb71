#include "models/comparison_model.h"

#include <cmath>
#include <map>

#include <QStringList>

#include "compare/pair_text.h"
#include "models/figure_text.h"
#include "schema/value_format.h"

namespace stepscope::views {

namespace {

// A difference keeps its sign in every unit.
QString difference_text(double value, schema::ColumnKind unit) {
  const QString magnitude = value_with_unit(std::fabs(value), unit);
  return value > 0 ? "+" + magnitude : value < 0 ? "-" + magnitude : magnitude;
}


}  // namespace

ComparisonModel::ComparisonModel(QObject* parent)
    : TableModel({{"item", false, {}, tr("Item")},
                  {"measure", false, {}, tr("Measure")},
                  {"a", true, tr("Run A"), tr("A")},
                  {"b", true, tr("Run B"), tr("B")},
                  {"b_minus_a", true, tr("B - A, in the measure's unit"), tr("B - A")},
                  {"b_over_a", true, tr("B / A: above 1, B is larger"), tr("B / A")},
                  {"note", false, tr("Why A or B has no value"), tr("Note")}},
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
    case A: return r.a ? Cell{value_with_unit(*r.a, r.unit), *r.a} : missing_cell();
    case B: return r.b ? Cell{value_with_unit(*r.b, r.unit), *r.b} : missing_cell();
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
    case Note: return text_cell(r.note);
  }
  return missing_cell();
}

QString identity_of(const schema::Table& table, size_t row) {
  return identity_of(table, table, schema::RowPair{row, std::nullopt, {}});
}

namespace {

// Why `side` ("A", "B") has no value in a measure of its row `row` (none: no such row).
QString missing_why(const schema::Table& table, std::optional<size_t> row, const QString& side) {
  return QString::fromStdString(compare::missing_reason(table, row, side.toStdString()));
}

QString note_for(const std::optional<double>& a, const std::optional<double>& b, const QString& why_a,
                 const QString& why_b) {
  QStringList parts;
  if (!a && !why_a.isEmpty()) parts << why_a;
  if (!b && !why_b.isEmpty()) parts << why_b;
  return parts.join(QStringLiteral("; "));
}

}  // namespace

// The words are the engine's (compare/pair_text.h), so that the CLI's compare says the same.
QString identity_of(const schema::Table& a, const schema::Table& b, const schema::RowPair& pair) {
  return QString::fromStdString(compare::identity_text(a, b, pair));
}

QString changes_text(const schema::Table& a, const std::vector<schema::SettingChange>& changes) {
  return QString::fromStdString(compare::changes_text(a, changes));
}

std::vector<ComparisonRow> compare_tables(const schema::Table& a, const schema::Table& b) {
  std::vector<ComparisonRow> rows;
  for (const auto& pair : schema::pair_rows(a, b)) {
    const QString item = identity_of(a, b, pair);
    for (size_t c = 0; c < a.columns.size(); ++c) {
      const auto& column = a.columns[c];
      if (column.role != schema::ColumnRole::measure || !schema::is_numeric(column.kind)) continue;
      const int cb = b.column_index(column.key);
      const auto va = pair.a ? schema::number_of(a.rows[*pair.a][c]) : std::nullopt;
      const auto vb = pair.b && cb >= 0 ? schema::number_of(b.rows[*pair.b][static_cast<size_t>(cb)]) : std::nullopt;
      if (!va && !vb) continue;
      const QString note =
          note_for(va, vb, missing_why(a, pair.a, QStringLiteral("A")), missing_why(b, pair.b, QStringLiteral("B")));
      rows.push_back({item, QString::fromStdString(schema::header_text(column)), column.kind, va, vb, note});
    }
  }
  return rows;
}

namespace {

// Why a side has nothing of this kind at all (`absent`), or lacks only this item (`not_there`).
QString why_missing(bool has_data, const QString& absent, const QString& not_there) {
  return has_data ? not_there : absent;
}

// Neither run has data of this kind: one row that says why, rather than an empty table.
std::vector<ComparisonRow> nothing_to_compare(const Absence& absent) {
  if (absent.a.isEmpty() && absent.b.isEmpty()) return {};
  ComparisonRow row{QString(), QString(), schema::ColumnKind::real, std::nullopt, std::nullopt, {}};
  row.note = note_for(std::nullopt, std::nullopt, absent.a, absent.b);
  return {row};
}

}  // namespace

std::vector<ComparisonRow> compare_kernels(const profiling::KernelProfile* a, const profiling::KernelProfile* b,
                                           const std::string& range, const Absence& absent) {
  const auto* ra = a ? profiling::find_range(*a, range) : nullptr;
  const auto* rb = b ? profiling::find_range(*b, range) : nullptr;
  if (!ra && !rb) return nothing_to_compare(absent);
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
  const QString why_a = why_missing(ra != nullptr, absent.a, QObject::tr("A ran no such kernel"));
  const QString why_b = why_missing(rb != nullptr, absent.b, QObject::tr("B ran no such kernel"));
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
    const QString note = note_for(total(ka), total(kb), why_a, why_b);
    rows.push_back({item, "total time", schema::ColumnKind::nanoseconds, total(ka), total(kb), note});
    rows.push_back({item, "instances/step", schema::ColumnKind::real, per_step(ka), per_step(kb), note});
  }
  return rows;
}

std::vector<ComparisonRow> compare_memory_peaks(const profiling::MemoryTimeline* a, const profiling::MemoryTimeline* b,
                                                const Absence& absent) {
  if (!a && !b) return nothing_to_compare(absent);
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
  const QString why_a = why_missing(a != nullptr, absent.a, QObject::tr("A has no such peak"));
  const QString why_b = why_missing(b != nullptr, absent.b, QObject::tr("B has no such peak"));
  std::vector<ComparisonRow> rows;
  for (const auto& label : order) {
    const auto [pa, pb] = peaks[label];
    const QString item = QString::fromStdString(label);
    const auto bytes = [](const profiling::MemoryPeak* p, std::optional<profiling::MemoryCategory> c) {
      if (!p) return std::optional<double>();
      return std::optional(static_cast<double>(c ? p->bytes_by_category[profiling::category_index(*c)] : p->allocated_bytes));
    };
    const auto add = [&](const QString& measure, std::optional<double> va, std::optional<double> vb) {
      rows.push_back({item, measure, schema::ColumnKind::bytes, va, vb, note_for(va, vb, why_a, why_b)});
    };
    add("allocated", bytes(pa, std::nullopt), bytes(pb, std::nullopt));
    for (const auto c : profiling::all_memory_categories()) {
      const auto va = bytes(pa, c), vb = bytes(pb, c);
      if (va.value_or(0) == 0 && vb.value_or(0) == 0) continue;
      add(QString::fromStdString(profiling::to_string(c)), va, vb);
    }
  }
  return rows;
}

}  // namespace stepscope::views
