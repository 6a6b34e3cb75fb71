#include "models/comparison_model.h"

#include <cmath>
#include <map>

#include <QStringList>

#include "models/format.h"
#include "schema/value_format.h"

namespace stepscope::views {

namespace {

// The engine's text carries the unit (schema/column.h).
QString value_text(double value, schema::ColumnKind unit) { return QString::fromStdString(schema::display_text(value, unit)); }

// A difference keeps its sign in every unit.
QString difference_text(double value, schema::ColumnKind unit) {
  const QString magnitude = value_text(std::fabs(value), unit);
  return value > 0 ? "+" + magnitude : value < 0 ? "-" + magnitude : magnitude;
}


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

QString identity_of(const schema::Table& table, size_t row) {
  QStringList parts;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    const auto& column = table.columns[c];
    if (column.role != schema::ColumnRole::identity) continue;
    const QString value = QString::fromStdString(schema::display_text(table.rows[row][c], column.kind));
    parts << (column.kind == schema::ColumnKind::text ? value : QString::fromStdString(column.label) + " " + value);
  }
  return parts.join(QStringLiteral(", "));
}

std::vector<ComparisonRow> compare_tables(const schema::Table& a, const schema::Table& b) {
  std::vector<QString> order;  // A's rows first, then B's new ones
  std::map<QString, size_t> in_a, in_b;
  for (size_t r = 0; r < a.rows.size(); ++r) {
    if (in_a.emplace(identity_of(a, r), r).second) order.push_back(identity_of(a, r));
  }
  for (size_t r = 0; r < b.rows.size(); ++r) {
    const QString key = identity_of(b, r);
    if (in_b.emplace(key, r).second && !in_a.count(key)) order.push_back(key);
  }
  std::vector<ComparisonRow> rows;
  for (const auto& key : order) {
    for (size_t c = 0; c < a.columns.size(); ++c) {
      const auto& column = a.columns[c];
      if (column.role != schema::ColumnRole::measure || !schema::is_numeric(column.kind)) continue;
      const int cb = b.column_index(column.key);
      const auto value = [&](const schema::Table& t, const std::map<QString, size_t>& rows_of, int col) {
        const auto it = rows_of.find(key);
        if (it == rows_of.end() || col < 0) return std::optional<double>();
        return schema::number_of(t.rows[it->second][static_cast<size_t>(col)]);
      };
      ComparisonRow row{key, QString::fromStdString(schema::header_text(column)), column.kind,
                        value(a, in_a, static_cast<int>(c)), value(b, in_b, cb)};
      if (row.a || row.b) rows.push_back(row);
    }
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
    rows.push_back({item, "total time", schema::ColumnKind::nanoseconds, total(ka), total(kb)});
    rows.push_back({item, "instances/step", schema::ColumnKind::real, per_step(ka), per_step(kb)});
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
    rows.push_back({item, "allocated", schema::ColumnKind::bytes, bytes(pa, std::nullopt), bytes(pb, std::nullopt)});
    for (const auto c : profiling::all_memory_categories()) {
      const auto va = bytes(pa, c), vb = bytes(pb, c);
      if (va.value_or(0) == 0 && vb.value_or(0) == 0) continue;
      rows.push_back({item, QString::fromStdString(profiling::to_string(c)), schema::ColumnKind::bytes, va, vb});
    }
  }
  return rows;
}

}  // namespace stepscope::views
