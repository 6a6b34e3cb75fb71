// What the memory timeline chart draws, as plain data built from a MemoryTimeline (no
// widgets): stacked category boundaries, the reserved line, phase bands and peak markers.
// x is milliseconds from the timeline's first point, y is MiB.
#pragma once

#include <QList>
#include <QPointF>
#include <QString>
#include <cstdint>
#include <optional>
#include <vector>

#include "profiling/memory_timeline.h"

namespace stepscope::views {

// Bottom to top: long-lived memory below, so that what rises and falls within a step
// (gradients, activations, temporaries) rides on a flat base, as in memory_viz.
const std::vector<profiling::MemoryCategory>& memory_stack_order();

struct MemoryStackLayer {
  profiling::MemoryCategory category = profiling::MemoryCategory::other;
  QList<QPointF> upper;  // this category plus every layer below it, one point per drawn point
  double max_mib = 0;    // the category's own largest size; 0 when never used
};

struct MemoryBandSpan {
  double start_ms = 0, end_ms = 0;
  QString phase;  // the mark's phase: "forward", "backward", "optimizer step", "step end"
  int step = -1;
  bool warmup = false;
};

struct MemoryPeakMarker {
  QString label;  // the peaks' labels at this point, joined: "forward, overall"
  double x_ms = 0;
  double y_mib = 0;        // allocated total
  int64_t bytes = 0;       // the same, exact
};

struct MemoryChartData {
  int64_t origin_ns = 0;                       // time at x = 0
  std::vector<profiling::MemoryPoint> points;  // the points drawn, for the hover text
  std::vector<MemoryStackLayer> layers;        // memory_stack_order(), always all categories
  QList<QPointF> reserved;                     // where the allocator reported its reserved total
  std::vector<MemoryBandSpan> bands;           // index = MemoryPoint::band
  std::vector<MemoryPeakMarker> peaks;
  double x_min = 0, x_max = 0;  // the whole timeline, bands included
  double y_max = 0;             // highest value drawn
  size_t source_points = 0;     // points in the timeline before decimation
  bool truncated = false;       // the recording hit its event limit
};

// At most max_points of the timeline's points (profiling::decimate, which keeps the highest
// point and each category's maximum) plus the point of every labelled peak, so that the
// markers sit on the area.
MemoryChartData build_memory_chart_data(const profiling::MemoryTimeline& timeline, size_t max_points);
// The same, with the point budget spent on [from_ms, to_ms] only (one point either side is
// kept so the areas reach the window's edges): the detail of a zoomed view. Bands, peaks and
// the extents still cover the whole timeline.
MemoryChartData build_memory_chart_data(const profiling::MemoryTimeline& timeline, size_t max_points,
                                        double from_ms, double to_ms);

// Index ranges [first, last) splitting `points` (sorted by x) into at most `pieces` runs of
// about equal length, each reaching `overlap` further in x than where the next one starts
// (antialiased edges that merely meet leave a faint seam). Ranges that would hold fewer than
// two points (nothing to draw) are empty: {0, 0}.
std::vector<std::pair<qsizetype, qsizetype>> split_into_pieces(const QList<QPointF>& points, size_t pieces,
                                                               double overlap);

// The drawn point nearest to x_ms; nullopt when there are none.
std::optional<size_t> nearest_point(const MemoryChartData& data, double x_ms);
// Hover text (rich text) of a drawn point: time, phase and step, then bytes per category
// from the top of the stack down, the total and the reserved memory.
QString memory_point_tooltip(const MemoryChartData& data, size_t index);
// "forward · step 3 (warm-up)".
QString band_caption(const MemoryBandSpan& band);

}  // namespace stepscope::views
