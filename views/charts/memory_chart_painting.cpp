#include "charts/memory_chart_painting.h"
#include "profiling/step_ranges.h"

#include <QPainter>
#include <algorithm>

#include "charts/chart_colors.h"
#include "charts/chart_style.h"
#include "models/format.h"

namespace stepscope::views {

using namespace profiling::step_ranges;

namespace {

bool is_shaded_phase(const QString& phase) {
  return phase == QLatin1String(kForward) || phase == QLatin1String(kBackward) ||
         phase == QLatin1String(kOptimizerStep);
}

// The caption that fits in `width` pixels: the full one, else without "(warm-up)" (the
// hatching says it), else the phase alone, else none.
QString fitting_caption(const QFontMetricsF& metrics, const MemoryBandSpan& band, double width) {
  constexpr double kPadding = 6;
  if (width < metrics.averageCharWidth() * 4) return {};
  MemoryBandSpan measured = band;
  measured.warmup = false;
  for (const QString& text : {band_caption(band), band_caption(measured), band.phase}) {
    if (metrics.horizontalAdvance(text) + kPadding <= width) return text;
  }
  return {};
}

void paint_warmup(QPainter& painter, const QRectF& rect) {
  painter.fillRect(rect, QColor(0, 0, 0, 10));
  painter.fillRect(rect, QBrush(QColor(0, 0, 0, 36), Qt::BDiagPattern));
}

}  // namespace

void paint_phase_bands(QPainter& painter, const PlotMapping& map, const std::vector<MemoryBandSpan>& bands) {
  const QRectF& plot = map.plot;
  // Bands are in time order: the visible ones are a contiguous run.
  const auto first = std::partition_point(bands.begin(), bands.end(),
                                          [&](const MemoryBandSpan& b) { return b.end_ms < map.x_from; });
  const auto last = std::partition_point(first, bands.end(),
                                         [&](const MemoryBandSpan& b) { return b.start_ms <= map.x_to; });
  if (first == last) return;
  painter.setClipRect(plot);
  const QFont font = annotation_font();
  const QFontMetricsF metrics(font);
  painter.setFont(font);
  auto rect_of = [&](double start_ms, double end_ms) {
    const double left = std::max(map.x(start_ms), plot.left()), right = std::min(map.x(end_ms), plot.right());
    return QRectF(left, plot.top(), std::max(right - left, 0.0), plot.height());
  };
  auto caption = [&](const QRectF& rect, const QString& text, const QColor& color) {
    if (text.isEmpty()) return;
    painter.setPen(color);
    painter.drawText(QPointF(rect.left() + 3, plot.top() + metrics.ascent() + 2), text);
  };

  if (plot.width() / static_cast<double>(last - first) < kMinBandPixels) {
    for (auto run = first; run != last;) {
      auto end = std::find_if(run, last, [&](const MemoryBandSpan& b) { return b.warmup != run->warmup; });
      if (run->warmup) {
        const QRectF rect = rect_of(run->start_ms, std::prev(end)->end_ms);
        paint_warmup(painter, rect);
        const QString text = QObject::tr("warm-up");
        if (metrics.horizontalAdvance(text) + 6 <= rect.width()) caption(rect, text, QColor(0x505050));
      }
      run = end;
    }
    return;
  }
  for (auto band = first; band != last; ++band) {
    const QRectF rect = rect_of(band->start_ms, band->end_ms);
    const QColor phase = phase_color(band->phase);
    if (is_shaded_phase(band->phase)) {
      QColor fill = phase;
      fill.setAlpha(band->warmup ? 20 : 38);
      painter.fillRect(rect, fill);
      if (band->warmup) paint_warmup(painter, rect);
    }
    if (band->phase == QLatin1String(kForward) && band->start_ms >= map.x_from) {
      painter.setPen(QPen(QColor(0, 0, 0, 70), 1, Qt::DotLine));
      painter.drawLine(QPointF(rect.left(), plot.top()), QPointF(rect.left(), plot.bottom()));
    }
    caption(rect, fitting_caption(metrics, *band, rect.width()), phase.darker(170));
  }
}

void paint_peak_labels(QPainter& painter, const PlotMapping& map, const std::vector<MemoryPeakMarker>& peaks,
                       std::optional<double> hover_x) {
  const QRectF& plot = map.plot;
  if (hover_x && *hover_x >= map.x_from && *hover_x <= map.x_to) {
    painter.setPen(QPen(QColor(0, 0, 0, 140), 1));
    painter.drawLine(QPointF(map.x(*hover_x), plot.top()), QPointF(map.x(*hover_x), plot.bottom()));
  }
  const QFont font = annotation_font();
  const QFontMetricsF metrics(font);
  painter.setFont(font);
  std::vector<QRectF> placed;
  for (const auto& peak : peaks) {
    if (peak.x_ms < map.x_from || peak.x_ms > map.x_to) continue;
    const QPointF at = map.map({peak.x_ms, peak.y_mib});
    const QString text = QStringLiteral("%1: %2").arg(peak.label, format_bytes(peak.bytes));
    QRectF box(0, 0, metrics.horizontalAdvance(text) + 8, metrics.height() + 2);
    box.moveCenter(QPointF(at.x(), at.y() - 10 - box.height() / 2));
    // Inside the plot, at the first free slot: stacked upwards from just above the point, then
    // downwards from just below it, past labels already placed.
    box.moveLeft(std::clamp(box.left(), plot.left() + 1, std::max(plot.left() + 1, plot.right() - box.width() - 1)));
    const auto free = [&](const QRectF& candidate) {
      return std::none_of(placed.begin(), placed.end(), [&](const QRectF& r) { return r.intersects(candidate); });
    };
    const double step = box.height() + 2;
    std::vector<double> tops;
    for (double top = at.y() - 10 - box.height(); top >= plot.top(); top -= step) tops.push_back(top);
    for (double top = at.y() + 10; top + box.height() <= plot.bottom(); top += step) tops.push_back(top);
    bool found = false;
    for (double top : tops) {
      QRectF candidate = box;
      candidate.moveTop(top);
      if (free(candidate)) {
        box = candidate;
        found = true;
        break;
      }
    }
    if (!found && box.top() < plot.top()) box.moveTop(at.y() + 10);  // crowded: at least inside the plot
    placed.push_back(box);
    painter.setPen(QPen(QColor(0, 0, 0, 90), 1));
    painter.drawLine(at, QPointF(at.x(), at.y() > box.bottom() ? box.bottom() : box.top()));
    painter.setBrush(QColor(255, 255, 255, 225));
    painter.setPen(QPen(QColor(0x707070), 0.8));
    painter.drawRoundedRect(box, 3, 3);
    painter.setPen(Qt::black);
    painter.drawText(box, Qt::AlignCenter, text);
  }
}

}  // namespace stepscope::views
