#include "charts/sweep_chart_view.h"

#include <QChart>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

#include "charts/chart_colors.h"
#include "charts/chart_limits.h"
#include "charts/chart_overlay.h"
#include "charts/chart_style.h"
#include "charts/nice_value_axis.h"
#include "models/format.h"

namespace stepscope::views {

namespace {
// Short enough for the smallest chart (allow_small); the chart's title says the rest.
const QString kTimeTitle = QStringLiteral("step time (ms)");
}  // namespace

SweepChartView::SweepChartView(const QString& title, QWidget* parent) : QChartView(new QChart, parent) {
  allow_small(*this);
  setRenderHint(QPainter::Antialiasing);
  QChart& c = *chart();
  style_chart(c, title);
  x_axis_ = new NiceValueAxis(QString(), 6);
  c.addAxis(x_axis_, Qt::AlignBottom);
  log_x_axis_ = new QLogValueAxis;
  style_axis(*log_x_axis_, QString());
  log_x_axis_->setBase(2);
  log_x_axis_->setLabelFormat(QStringLiteral("%g"));
  c.addAxis(log_x_axis_, Qt::AlignBottom);
  linear_time_axis_ = new NiceValueAxis(kTimeTitle, 6);
  c.addAxis(linear_time_axis_, Qt::AlignLeft);
  log_time_axis_ = new QLogValueAxis;
  // No ", log scale": its decades say so, and the title must fit the smallest chart's height.
  style_axis(*log_time_axis_, kTimeTitle);
  log_time_axis_->setBase(10);
  log_time_axis_->setLabelFormat(QStringLiteral("%g"));
  log_time_axis_->setMinorTickCount(8);  // 2..9 between the decades
  log_time_axis_->setMinorGridLineColor(QColor(0xF0F0F0));
  c.addAxis(log_time_axis_, Qt::AlignLeft);
  set_log_range(*log_x_axis_, 1, 2);  // not Qt's empty [1, 1] while there is nothing to show
  set_log_range(*log_time_axis_, 1, 10);
  c.legend()->setAlignment(Qt::AlignRight);
  c.legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);  // a line per configuration
  overlay_ = new ChartOverlayItem(c, ChartOverlayItem::kAboveSeries,
                                  [this](QPainter& p, const QRectF& plot) { paintFailures(p, plot); });
  showAxes();
  setData({});
}

void SweepChartView::setLogScale(bool on) {
  if (on == log_scale_) return;
  log_scale_ = on;
  setData(std::move(data_));  // series are re-attached to the other axis
}

void SweepChartView::showAxes() {
  // Both axes of a pair stay in the chart; the hidden one takes no room and no series.
  linear_time_axis_->setVisible(!log_scale_);
  log_time_axis_->setVisible(log_scale_);
  x_axis_->setVisible(!data_.log_x);
  log_x_axis_->setVisible(data_.log_x);
}

void SweepChartView::setData(SweepChartData data) {
  data_ = std::move(data);
  chart()->removeAllSeries();  // deletes them
  showAxes();
  QAbstractAxis* time_axis = log_scale_ ? static_cast<QAbstractAxis*>(log_time_axis_) : linear_time_axis_;
  QAbstractAxis* x_axis = data_.log_x ? static_cast<QAbstractAxis*>(log_x_axis_) : x_axis_;
  const QString y_title = data_.y_title.isEmpty() ? kTimeTitle : data_.y_title;
  linear_time_axis_->setTitleText(y_title);
  log_time_axis_->setTitleText(y_title);
  for (size_t i = 0; i < data_.lines.size(); ++i) {
    auto* series = new QLineSeries;
    series->setName(data_.lines[i].name);
    const QColor color = data_.lines[i].color.isValid() ? data_.lines[i].color : series_color(static_cast<int>(i));
    series->setPen(QPen(color, 2));
    series->setPointsVisible(true);
    series->replace(data_.lines[i].points);
    // Hover: the exact values of the point under the pointer, named by the axes' titles.
    connect(series, &QLineSeries::hovered, this, [this, series](const QPointF& at, bool on) {
      if (!on) return QToolTip::hideText();
      QPointF nearest = at;
      double best = std::numeric_limits<double>::infinity();
      const QPointF pixel = chart()->mapToPosition(at, series);
      for (const QPointF& p : series->points()) {
        const double d = QLineF(chart()->mapToPosition(p, series), pixel).length();
        if (d < best) best = d, nearest = p;
      }
      const QString y_title = log_scale_ ? log_time_axis_->titleText() : linear_time_axis_->titleText();
      QToolTip::showText(QCursor::pos(), QStringLiteral("%1\n%2: %3\n%4: %5")
                                             .arg(series->name(), data_.x_title, format_significant(nearest.x()), y_title,
                                                  format_significant(nearest.y())),
                         this);
    });
    chart()->addSeries(series);
    series->attachAxis(x_axis);
    series->attachAxis(time_axis);
  }
  x_axis_->setTitleText(data_.x_title);
  log_x_axis_->setTitleText(data_.x_title + tr(", log scale"));
  log_x_axis_->setBase(data_.log_x_base);
  if (data_.x_min > 0) {  // whole powers of the base either side
    const double base = data_.log_x_base;
    const auto log_base = [base](double x) { return std::log(x) / std::log(base); };
    // One x (a sweep of one length): a power more either side, so its points and marks sit
    // inside the plot, not on its frame.
    const double more = data_.x_min == data_.x_max ? 1 : 0;
    const double low = std::pow(base, std::floor(log_base(data_.x_min) + 1e-9) - more);
    const double high = std::pow(base, std::ceil(log_base(data_.x_max) - 1e-9) + more);
    set_log_range(*log_x_axis_, low, std::max(high, low * base));
  }
  if (data_.x_max > data_.x_min) {
    // A little room either side, so end points and failure marks are not on the frame.
    const double span = data_.x_max - data_.x_min;
    x_axis_->setNiceRange(std::max(0.0, data_.x_min - span * 0.05), data_.x_max + span * 0.05);
  } else {
    // One x (a sweep of one length): the axis from 0 with the value in its middle, not a
    // magnified 245..265 that reads as a range of lengths.
    const double x = data_.x_max;
    x_axis_->setZeroBasedRange(x > 0 ? 2 * x : 1.0);
    if (!(x > 0)) x_axis_->setNiceRange(x - 1, x + 1);
  }
  if (log_scale_) {
    const double low = data_.y_min > 0 ? std::pow(10.0, std::floor(std::log10(data_.y_min))) : 1.0;
    const double high = data_.y_max > 0 ? std::pow(10.0, std::ceil(std::log10(data_.y_max * 1.05))) : 10.0;
    set_log_range(*log_time_axis_, low, std::max(high, low * 10));
  } else {
    linear_time_axis_->setZeroBasedRange(data_.y_max * 1.05);
  }
  overlay_->update();
}

void SweepChartView::paintFailures(QPainter& painter, const QRectF& plot) const {
  const bool nothing = data_.failures.empty() && std::all_of(data_.lines.begin(), data_.lines.end(),
                                                             [](const SweepLine& l) { return l.points.isEmpty(); });
  paint_corner_note(painter, plot, data_.note);  // what was left out, over what is drawn
  if (nothing && data_.note.isEmpty()) return paint_plot_note(painter, plot, tr("No sweep results"));
  const PlotMapping linear{plot, x_axis_->min(), x_axis_->max(), 0, 1};
  const PlotMapping logarithmic{plot, std::log(log_x_axis_->min()), std::log(log_x_axis_->max()), 0, 1};
  const auto x_at = [&](double x) { return data_.log_x ? logarithmic.x(std::log(x)) : linear.x(x); };
  const QFont font = annotation_font();
  painter.setFont(font);
  const QFontMetricsF metrics(font);
  // Marks stack upwards from the x axis where several configurations fail at one x.
  std::vector<std::pair<double, int>> used;  // x, marks there so far
  for (const auto& failure : data_.failures) {
    const double x = x_at(failure.x);
    auto slot = std::find_if(used.begin(), used.end(), [x](const auto& u) { return std::abs(u.first - x) < 1; });
    if (slot == used.end()) slot = used.insert(used.end(), {x, 0});
    const double y = plot.bottom() - 6 - metrics.height() * slot->second++;
    const QString what = data_.lines.size() > 1 ? QStringLiteral("%1: %2").arg(failure.line, failure.status)
                                                : failure.status;
    // The cross sits on the configuration's x; its text goes right of it, or left where the
    // plot ends first.
    const QString cross = QStringLiteral("\u2715");
    const double half_cross = metrics.horizontalAdvance(cross) / 2;
    QString text = cross + QLatin1Char(' ') + what;
    double left = x - half_cross;
    if (left + metrics.horizontalAdvance(text) > plot.right() - 2) {
      text = what + QLatin1Char(' ') + cross;
      left = x + half_cross - metrics.horizontalAdvance(text);
    }
    painter.setPen(failure_color());
    painter.drawText(QPointF(left, y), text);
  }
}

}  // namespace stepscope::views
