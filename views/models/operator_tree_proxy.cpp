#include "models/operator_tree_proxy.h"

#include "models/operator_tree_model.h"
#include "models/roles.h"

namespace stepscope::views {

OperatorTreeProxy::OperatorTreeProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(ExactValueRole);
  setSortCaseSensitivity(Qt::CaseInsensitive);
  setFilterRole(OperatorTreeModel::SearchTextRole);
  setFilterKeyColumn(OperatorTreeModel::Name);
  setFilterCaseSensitivity(Qt::CaseInsensitive);
  setRecursiveFilteringEnabled(true);  // a match keeps its ancestors
  setAutoAcceptChildRows(true);        // and shows what is inside it
}

void OperatorTreeProxy::set_text_filter(const QString& text) {
  if (text == text_) return;
  text_ = text;
  setFilterFixedString(text);
}

bool OperatorTreeProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const QVariant l = left.data(sortRole());
  const QVariant r = right.data(sortRole());
  if (l.isValid() && r.isValid()) return QSortFilterProxyModel::lessThan(left, right);
  if (l.isValid() == r.isValid()) return false;
  // A descending sort puts the "greater" first: there, no value must be the smaller.
  return l.isValid() != (sortOrder() == Qt::DescendingOrder);
}

}  // namespace stepscope::views
