#include "charts/chart_export.h"

#include <QChartView>
#include <QCoreApplication>
#include <QImage>
#include <QPainter>

#include "export/file_output.h"

namespace stepscope::views {

namespace {
void set_error(QString* error, const QString& text) {
  if (error) *error = text;
}
}  // namespace

bool save_chart_png(QChartView& view, const QString& path, QString* error, QSize size) {
  if (!check_output_file(path, error)) return false;  // refused before anything is drawn
  const QSize target = size.isValid() ? size : view.size();
  if (target.isEmpty()) {
    set_error(error, QStringLiteral("cannot export an empty chart (%1 x %2 pixels)").arg(target.width()).arg(target.height()));
    return false;
  }
  // Resizing the view relays the chart out at the target size: scaling a screen-sized
  // rendering instead would blur text and stretch it out of proportion.
  const QSize original = view.size();
  if (target != original) view.resize(target);
  // Qt Charts lays the legend and axes out on posted LayoutRequest events: deliver them, so
  // the image shows the chart as it would be painted next, not as it was last painted.
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
  QImage image(target, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    // QWidget::render (QGraphicsView hides it) delivers a hidden view's pending resize first, so the chart has its size.
    static_cast<QWidget&>(view).render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
  }
  if (target != original) view.resize(original);
  return write_png_file(image, path, error);
}

}  // namespace stepscope::views
