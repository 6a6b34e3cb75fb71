// Sorting and filtering of the kernel table, fast enough for thousands of distinct kernels.
#pragma once

#include <optional>
#include <string>

#include <QPointer>
#include <QSortFilterProxyModel>

#include "profiling/kernel_profile.h"

namespace stepscope::views {

class KernelTableModel;

// Sorts by the exact values (numbers numerically, text case-insensitively) and keeps the
// rows whose full or short name contains the name filter (case-insensitive) and, when set,
// of one category. Over a KernelTableModel it compares the kernels' fields directly: no
// QVariant or QString per comparison. Over another model it sorts by ExactValueRole through
// QSortFilterProxyModel and filters nothing.
class KernelFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit KernelFilterProxy(QObject* parent = nullptr);

  void setSourceModel(QAbstractItemModel* model) override;

  // Empty: every name. Case folds for ASCII letters, which is what kernel names are made of.
  void set_name_filter(const QString& text);
  QString name_filter() const { return name_filter_; }
  // nullopt: every category.
  void set_category_filter(std::optional<profiling::KernelCategory> category);
  std::optional<profiling::KernelCategory> category_filter() const { return category_; }

 protected:
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
  bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

 private:
  QPointer<const KernelTableModel> kernels_;  // the source, when it is a kernel table
  QString name_filter_;
  std::string needle_;  // name_filter_ in UTF-8, ASCII lower-cased once
  std::optional<profiling::KernelCategory> category_;
};

}  // namespace stepscope::views
