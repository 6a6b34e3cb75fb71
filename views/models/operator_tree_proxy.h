// Sorting and filtering of the Operators tab's tree.
#pragma once

#include <QSortFilterProxyModel>

namespace stepscope::views {

// Sorts the children of each row among themselves by the exact values (numbers numerically,
// text case-insensitively). The text filter keeps the rows whose range, operator, input
// shapes or kernel (short or full name) contain it, case-insensitively, with their ancestors
// (to say where they are) and their descendants (a matching range or operator shows whole).
// Cells without a value (a kernel's CPU time, the GPU's on a CPU) sort last either way.
class OperatorTreeProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit OperatorTreeProxy(QObject* parent = nullptr);
  // Empty: every row.
  void set_text_filter(const QString& text);
  const QString& text_filter() const { return text_; }

 protected:
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

 private:
  QString text_;
};

}  // namespace stepscope::views
