// The memory chart's overlays, painted in plot coordinates: phase bands behind the areas,
// peak labels and the hover line in front.
#pragma once

#include <optional>
#include <vector>

#include "charts/chart_overlay.h"
#include "charts/memory_chart_data.h"

class QPainter;

namespace stepscope::views {

// Bands narrower than this many pixels on average are merged: drawn one by one they would
// only make a moiré (and cost a fill and a text measurement each).
inline constexpr double kMinBandPixels = 4.0;

// Each phase band as a translucent rectangle in its phase's colour (warm-up paler and
// hatched; "step end" left blank, so steps read as blocks), a dotted line where a step
// starts, and its caption where it fits. When the bands are denser than kMinBandPixels,
// only the warm-up stretch is drawn, hatched, so the measured steps stand apart.
void paint_phase_bands(QPainter& painter, const PlotMapping& map, const std::vector<MemoryBandSpan>& bands);
// "label: size" boxes above the peak markers, stacked so that close peaks stay readable;
// a vertical line at hover_x when set.
void paint_peak_labels(QPainter& painter, const PlotMapping& map, const std::vector<MemoryPeakMarker>& peaks,
                       std::optional<double> hover_x);

}  // namespace stepscope::views
