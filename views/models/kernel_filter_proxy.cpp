#include "models/kernel_filter_proxy.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "models/kernel_table_model.h"
#include "models/roles.h"

namespace stepscope::views {

namespace {

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool less_ignoring_case(std::string_view a, std::string_view b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [](char x, char y) { return ascii_lower(x) < ascii_lower(y); });
}

// `needle` is lower case already.
bool contains_ignoring_case(std::string_view haystack, std::string_view needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                     [](char h, char n) { return ascii_lower(h) == n; }) != haystack.end();
}

// The categories' names, made once: sorting by category compares these.
const std::string& category_name(profiling::KernelCategory category) {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (auto c : profiling::all_kernel_categories()) {
      const auto i = static_cast<size_t>(c);
      if (all.size() <= i) all.resize(i + 1);
      all[i] = profiling::to_string(c);
    }
    return all;
  }();
  return names[static_cast<size_t>(category)];
}

}  // namespace

KernelFilterProxy::KernelFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  // What the fallback for other models sorts by; the kernel table's own path agrees with it.
  setSortRole(ExactValueRole);
  setSortCaseSensitivity(Qt::CaseInsensitive);
}

void KernelFilterProxy::setSourceModel(QAbstractItemModel* model) {
  kernels_ = qobject_cast<const KernelTableModel*>(model);
  QSortFilterProxyModel::setSourceModel(model);
}

void KernelFilterProxy::set_name_filter(const QString& text) {
  if (text == name_filter_) return;
  name_filter_ = text;
  needle_ = text.toStdString();
  std::transform(needle_.begin(), needle_.end(), needle_.begin(), ascii_lower);
  invalidateFilter();
}

void KernelFilterProxy::set_category_filter(std::optional<profiling::KernelCategory> category) {
  if (category == category_) return;
  category_ = category;
  invalidateFilter();
}

bool KernelFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  if (!kernels_) return QSortFilterProxyModel::lessThan(left, right);
  const profiling::KernelStats& a = kernels_->kernel(left.row());
  const profiling::KernelStats& b = kernels_->kernel(right.row());
  switch (left.column()) {
    case KernelTableModel::TimePercent: return a.time_percent < b.time_percent;
    case KernelTableModel::TotalTime: return a.total_ns < b.total_ns;
    case KernelTableModel::Instances: return a.instances < b.instances;
    case KernelTableModel::Avg: return a.mean_ns < b.mean_ns;
    case KernelTableModel::Med: return a.median_ns < b.median_ns;
    case KernelTableModel::Min: return a.min_ns < b.min_ns;
    case KernelTableModel::Max: return a.max_ns < b.max_ns;
    case KernelTableModel::StdDev: return a.stddev_ns < b.stddev_ns;
    case KernelTableModel::InstancesPerStep: return a.instances_per_step < b.instances_per_step;
    case KernelTableModel::Category: return less_ignoring_case(category_name(a.category), category_name(b.category));
    case KernelTableModel::Name: return less_ignoring_case(kernels_->shown_name(a), kernels_->shown_name(b));
    default: return QSortFilterProxyModel::lessThan(left, right);
  }
}

bool KernelFilterProxy::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
  if (!kernels_ || source_parent.isValid()) return QSortFilterProxyModel::filterAcceptsRow(source_row, source_parent);
  const profiling::KernelStats& k = kernels_->kernel(source_row);
  if (category_ && k.category != *category_) return false;
  return needle_.empty() || contains_ignoring_case(k.name, needle_) || contains_ignoring_case(k.short_name, needle_);
}

}  // namespace stepscope::views
