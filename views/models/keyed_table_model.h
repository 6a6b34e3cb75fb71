// A table following data that newer snapshots replace while a run goes on (a live kernel
// profile, a growing memory timeline), without resetting the view.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/table_model.h"

namespace stepscope::views {

// Each row shows one item of the subclass's data; a key identifies an item across snapshots.
// A new snapshot updates the rows in place: rows whose item is gone are removed, the others
// keep their row (so a view keeps its selection and a proxy its sort) and are announced as
// changed, and new items are appended. Only where keys repeat, and so cannot identify
// rows, does it fall back to a reset.
class KeyedTableModel : public TableModel {
  Q_OBJECT

 public:
  struct Item {
    int index = 0;    // where the item is in the (new) data
    std::string key;  // what identifies it across snapshots
  };

  int rowCount(const QModelIndex& parent = {}) const override;

 protected:
  using TableModel::TableModel;

  // Where the item a row shows is in the current data.
  int item(int row) const { return rows_[static_cast<size_t>(row)].index; }

  // Shows `items` of new data. `adopt` swaps the new data in; it runs once the rows of
  // vanished items are gone, so until then cell() still reads the old data.
  void update_items(std::vector<Item> items, const std::function<void()>& adopt);
  // The same as one reset: for a change of what the table shows, not of the data's age.
  void reset_items(std::vector<Item> items, const std::function<void()>& adopt);

 private:
  void remove_unmatched_rows(std::vector<int>& match);

  std::vector<Item> rows_;
  bool unique_keys_ = true;  // false: rows_ cannot be matched by key, the next update resets
};

}  // namespace stepscope::views
