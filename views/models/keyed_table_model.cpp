#include "models/keyed_table_model.h"

#include <string_view>
#include <unordered_map>
#include <utility>

namespace stepscope::views {

namespace {

// Key -> position in `items`; empty when a key repeats.
std::unordered_map<std::string_view, int> positions_by_key(const std::vector<KeyedTableModel::Item>& items) {
  std::unordered_map<std::string_view, int> positions;
  positions.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    if (!positions.emplace(items[i].key, static_cast<int>(i)).second) return {};
  }
  return positions;
}

}  // namespace

int KeyedTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

void KeyedTableModel::reset_items(std::vector<Item> items, const std::function<void()>& adopt) {
  beginResetModel();
  adopt();
  unique_keys_ = positions_by_key(items).size() == items.size();
  rows_ = std::move(items);
  endResetModel();
}

void KeyedTableModel::update_items(std::vector<Item> items, const std::function<void()>& adopt) {
  const auto positions = positions_by_key(items);
  if (!unique_keys_ || positions.size() != items.size()) {
    reset_items(std::move(items), adopt);
    return;
  }
  // match[row]: the position in `items` of the row's item, -1 when it is gone.
  std::vector<int> match(rows_.size(), -1);
  std::vector<bool> shown(items.size(), false);
  for (size_t row = 0; row < rows_.size(); ++row) {
    const auto it = positions.find(rows_[row].key);
    if (it == positions.end()) continue;
    match[row] = it->second;
    shown[static_cast<size_t>(it->second)] = true;
  }
  remove_unmatched_rows(match);

  adopt();
  for (size_t row = 0; row < rows_.size(); ++row) rows_[row].index = items[static_cast<size_t>(match[row])].index;
  if (!rows_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));

  std::vector<Item> added;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!shown[i]) added.push_back(std::move(items[i]));
  }
  if (added.empty()) return;
  beginInsertRows({}, rowCount(), rowCount() + static_cast<int>(added.size()) - 1);
  rows_.insert(rows_.end(), std::make_move_iterator(added.begin()), std::make_move_iterator(added.end()));
  endInsertRows();
}

void KeyedTableModel::remove_unmatched_rows(std::vector<int>& match) {
  // One removal per run of unmatched rows, the last run first so earlier row numbers hold.
  int end = rowCount();
  while (end > 0) {
    if (match[static_cast<size_t>(end - 1)] >= 0) {
      --end;
      continue;
    }
    int begin = end - 1;
    while (begin > 0 && match[static_cast<size_t>(begin - 1)] < 0) --begin;
    beginRemoveRows({}, begin, end - 1);
    rows_.erase(rows_.begin() + begin, rows_.begin() + end);
    match.erase(match.begin() + begin, match.begin() + end);
    endRemoveRows();
    end = begin;
  }
}

}  // namespace stepscope::views
