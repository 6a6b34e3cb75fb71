#include "charts/step_time_chart_view.h"

#include <QChart>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>

#include "charts/chart_colors.h"
#include "charts/chart_overlay.h"
#include "charts/chart_style.h"
#include "charts/nice_value_axis.h"

namespace stepscope::views {

namespace {
constexpr qsizetype kMostStepsWithMarkers = 60;  // beyond that, markers clutter the lines
}

StepTimeChartView::StepTimeChartView(QWidget* parent) : QChartView(new QChart, parent) {
  allow_small(*this);
  setRenderHint(QPainter::Antialiasing);
  QChart& c = *chart();
  style_chart(c, tr("Time of each measured step"));
  step_axis_ = new NiceValueAxis(tr("measured step"), 8, 1);
  time_axis_ = new NiceValueAxis(tr("step time (ms)"), 6);
  c.addAxis(step_axis_, Qt::AlignBottom);
  c.addAxis(time_axis_, Qt::AlignLeft);
  c.legend()->setAlignment(Qt::AlignRight);
  c.legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);  // a line per configuration
  note_ = new ChartOverlayItem(c, ChartOverlayItem::kAboveSeries, [this](QPainter& p, const QRectF& plot) {
    if (lines_.empty()) paint_plot_note(p, plot, tr("No measured steps"));
  });
  setLines({});
}

void StepTimeChartView::setLines(std::vector<StepLine> lines) {
  lines_ = std::move(lines);
  chart()->removeAllSeries();  // deletes them
  double last_step = 1, slowest = 0;
  for (size_t i = 0; i < lines_.size(); ++i) {
    const StepLine& line = lines_[i];
    auto* series = new QLineSeries;
    series->setName(line.label);
    series->setPen(QPen(series_color(static_cast<int>(i)), 2));
    series->setPointsVisible(line.points.size() <= kMostStepsWithMarkers);
    series->replace(line.points);
    chart()->addSeries(series);
    series->attachAxis(step_axis_);
    series->attachAxis(time_axis_);
    for (const auto& p : line.points) {
      last_step = std::max(last_step, p.x());
      slowest = std::max(slowest, p.y());
    }
  }
  step_axis_->setNiceRange(0, last_step);
  time_axis_->setZeroBasedRange(slowest * 1.05);
  note_->update();
}

}  // namespace stepscope::views
