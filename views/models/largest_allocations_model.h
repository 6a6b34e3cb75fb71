// The memory timeline's largest allocations, grouped by size, category and phase.
#pragma once

#include <cstdint>
#include <vector>

#include "models/keyed_table_model.h"
#include "profiling/memory_timeline.h"

namespace stepscope::views {

// One row per group of at least min_bytes() (the GUI's size slider hides small groups), in
// the timeline's order (largest first). Bytes shows in MiB and is exact in bytes.
class LargestAllocationsModel : public KeyedTableModel {
  Q_OBJECT

 public:
  enum Column { Bytes, Count, Category, Phase, ColumnCount };

  explicit LargestAllocationsModel(QObject* parent = nullptr);

  // Keeps a copy of the groups, not of the timeline's points.
  void set_timeline(const profiling::MemoryTimeline& timeline);
  // Groups below `bytes` leave the table (and come back when it is lowered) row by row,
  // without a reset. 0 shows every group.
  void set_min_bytes(int64_t bytes);
  int64_t min_bytes() const { return min_bytes_; }

 protected:
  Cell cell(int row, int column) const override;

 private:
  std::vector<Item> items_of(const std::vector<profiling::LargeAllocation>& groups, int64_t min_bytes) const;

  std::vector<profiling::LargeAllocation> groups_;
  int64_t min_bytes_ = 0;
};

}  // namespace stepscope::views
