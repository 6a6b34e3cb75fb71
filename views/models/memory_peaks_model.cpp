#include "models/memory_peaks_model.h"

#include <utility>

#include "models/format.h"

namespace stepscope::views {

namespace {

std::vector<TableModel::Column> peak_columns() {
  // The cells carry their unit (24.0 MiB, 1.25 s); the CSV names carry the exported one.
  const QString bytes = QStringLiteral("Shown in MiB; exact and exported in bytes");
  std::vector<TableModel::Column> columns = {
      {"Peak", false},
      {"Step", true},
      {"Time (ms)", true, "Since the timeline's first event; exported in ms", "Time"},
  };
  for (auto category : profiling::all_memory_categories()) {
    const QString name = QString::fromStdString(profiling::to_string(category));
    columns.push_back({name + " (bytes)", true, bytes, name});
  }
  columns.push_back({"Allocated (bytes)", true, bytes, "Allocated"});
  columns.push_back({"Reserved (bytes)", true, "The caching allocator's reserved total; " + bytes, "Reserved"});
  return columns;
}

}  // namespace

MemoryPeaksModel::MemoryPeaksModel(QObject* parent) : KeyedTableModel(peak_columns(), parent) {}

void MemoryPeaksModel::set_timeline(const profiling::MemoryTimeline& timeline) {
  std::vector<Item> items;
  for (size_t i = 0; i < timeline.peaks.size(); ++i) items.push_back({static_cast<int>(i), timeline.peaks[i].label});
  std::vector<profiling::MemoryPeak> peaks = timeline.peaks;
  const int64_t origin = timeline.points.empty() ? 0 : timeline.points.front().time_ns;
  update_items(std::move(items), [&] {
    peaks_ = std::move(peaks);
    origin_ns_ = origin;
  });
}

TableModel::Cell MemoryPeaksModel::cell(int row, int column) const {
  const profiling::MemoryPeak& peak = peaks_[static_cast<size_t>(item(row))];
  switch (column) {
    case Peak: return text_cell(QString::fromStdString(peak.label));
    case Step: {
      // -1 (before any phase mark) exports as the CLI writes it, but shows as no step.
      QString text = peak.step < 0 ? missing_text() : QString::number(peak.step);
      if (peak.step >= 0 && peak.warmup) text += QStringLiteral(" (warm-up)");
      return {text, peak.step};
    }
    case Time: {
      // A file's times may lie at int64's ends: their difference in double, not a wrapped int64.
      int64_t since = 0;
      const double since_ns = __builtin_sub_overflow(peak.time_ns, origin_ns_, &since)
                                  ? static_cast<double>(peak.time_ns) - static_cast<double>(origin_ns_)
                                  : static_cast<double>(since);
      return {format_duration_ns(since_ns), since_ns * 1e-6};
    }
    case Allocated: return bytes_cell(peak.allocated_bytes);
    case Reserved: return bytes_cell(peak.reserved_bytes);
    default: {
      static const auto categories = profiling::all_memory_categories();
      const auto category = categories[static_cast<size_t>(column - FirstCategory)];
      return bytes_cell(peak.bytes_by_category[profiling::category_index(category)]);
    }
  }
}

}  // namespace stepscope::views
