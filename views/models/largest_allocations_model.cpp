#include "models/largest_allocations_model.h"

#include <string>
#include <utility>

#include "models/format.h"

namespace stepscope::views {

namespace {

std::vector<TableModel::Column> allocation_columns() {
  return {
      {"Bytes", true, "Size of each allocation of the group; shown in MiB, exact and exported in bytes"},
      {"Count", true, "Allocations of the group"},
      {"Category", false},
      {"Phase", false,
       "The innermost range the allocations were made in; of an imported memory snapshot, the frame that "
       "made them (your own code first)"},
  };
}

}  // namespace

LargestAllocationsModel::LargestAllocationsModel(QObject* parent) : KeyedTableModel(allocation_columns(), parent) {}

void LargestAllocationsModel::set_timeline(const profiling::MemoryTimeline& timeline) {
  std::vector<profiling::LargeAllocation> groups = timeline.largest;
  update_items(items_of(groups, min_bytes_), [&] { groups_ = std::move(groups); });
}

void LargestAllocationsModel::set_min_bytes(int64_t bytes) {
  if (bytes == min_bytes_) return;
  update_items(items_of(groups_, bytes), [&] { min_bytes_ = bytes; });
}

std::vector<KeyedTableModel::Item> LargestAllocationsModel::items_of(
    const std::vector<profiling::LargeAllocation>& groups, int64_t min_bytes) const {
  std::vector<Item> items;
  for (size_t i = 0; i < groups.size(); ++i) {
    const auto& g = groups[i];
    if (g.bytes < min_bytes) continue;
    // A group is its size, category and phase, as the timeline groups them; the phase comes
    // last, so only the first two parts must be free of the separator.
    items.push_back(
        {static_cast<int>(i), std::to_string(g.bytes) + '\n' + profiling::to_string(g.category) + '\n' + g.phase});
  }
  return items;
}

TableModel::Cell LargestAllocationsModel::cell(int row, int column) const {
  const profiling::LargeAllocation& g = groups_[static_cast<size_t>(item(row))];
  switch (column) {
    case Bytes: return bytes_cell(g.bytes);
    case Count: return integer_cell(g.count);
    case Category: return text_cell(QString::fromStdString(profiling::to_string(g.category)));
    case Phase:
      // Outside every range: shown as none, exported empty as the CLI writes it.
      if (g.phase.empty()) return {missing_text(), QString()};
      return text_cell(QString::fromStdString(g.phase));
    default: return {};
  }
}

}  // namespace stepscope::views
