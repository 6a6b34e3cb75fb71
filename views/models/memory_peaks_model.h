// The memory timeline's peaks: what was live, by category, at the highest point of each
// phase.
#pragma once

#include <cstdint>
#include <vector>

#include "models/keyed_table_model.h"
#include "profiling/memory_timeline.h"

namespace stepscope::views {

// One row per peak, in the timeline's order, matched by label when a newer timeline comes.
// Sizes show in MiB and are exact in bytes; Time is since the timeline's first point, exact
// in ms, as the CLI's peaks CSV writes it.
class MemoryPeaksModel : public KeyedTableModel {
  Q_OBJECT

 public:
  enum Column {
    Peak,
    Step,
    Time,
    FirstCategory,  // one column per memory category, in all_memory_categories() order
    Allocated = FirstCategory + static_cast<int>(profiling::kMemoryCategoryCount),
    Reserved,
    ColumnCount,
  };

  explicit MemoryPeaksModel(QObject* parent = nullptr);

  // Keeps a copy of the peaks, not of the timeline's points.
  void set_timeline(const profiling::MemoryTimeline& timeline);

 protected:
  Cell cell(int row, int column) const override;

 private:
  std::vector<profiling::MemoryPeak> peaks_;
  int64_t origin_ns_ = 0;  // the first point's time
};

}  // namespace stepscope::views
