#include "charts/chart_overlay.h"

#include <QChart>
#include <QPainter>

#include "charts/chart_style.h"

namespace stepscope::views {

ChartOverlayItem::ChartOverlayItem(QChart& chart, qreal z, Painter paint)
    : QGraphicsItem(&chart), chart_(chart), paint_(std::move(paint)) {
  setZValue(z);
  setAcceptedMouseButtons(Qt::NoButton);  // the view handles zoom, pan and hover
  QObject::connect(&chart, &QChart::plotAreaChanged, &chart, [this](const QRectF&) {
    prepareGeometryChange();
    update();
  });
}

QRectF ChartOverlayItem::boundingRect() const {
  // The whole chart: labels may stand above the plot area's top edge.
  return QRectF(QPointF(0, 0), chart_.size());
}

void ChartOverlayItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  const QRectF plot = chart_.plotArea();
  if (!paint_ || plot.isEmpty()) return;
  painter->save();
  painter->setRenderHint(QPainter::Antialiasing);
  paint_(*painter, plot);
  painter->restore();
}

void paint_plot_note(QPainter& painter, const QRectF& plot_area, const QString& text) {
  if (text.isEmpty()) return;
  painter.setPen(QColor(0x707070));
  painter.drawText(plot_area.adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, text);
}

void paint_corner_note(QPainter& painter, const QRectF& plot_area, const QString& text) {
  if (text.isEmpty()) return;
  painter.save();
  painter.setFont(annotation_font());
  const QRectF room = plot_area.adjusted(8, 6, -8, -6);
  const int flags = Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap;
  const QRectF box = painter.boundingRect(room, flags, text).adjusted(-5, -3, 5, 3);
  painter.setPen(QPen(QColor(0xC08000), 1));
  painter.setBrush(QColor(255, 248, 225, 235));
  painter.drawRect(box);
  painter.setPen(QColor(0x6A4A00));
  painter.drawText(room, flags, text);
  painter.restore();
}

}  // namespace stepscope::views
