#include "widgets/field_flow_layout.h"

#include <QWidget>

#include <algorithm>

namespace stepscope::views {

FieldFlowLayout::FieldFlowLayout(int column_width, int min_columns, int preferred_columns, QWidget* parent)
    : QLayout(parent),
      column_width_(std::max(1, column_width)),
      min_columns_(std::max(1, min_columns)),
      preferred_columns_(std::max(min_columns_, preferred_columns)) {}

FieldFlowLayout::~FieldFlowLayout() {
  for (QLayoutItem* item : items_) delete item;
}

void FieldFlowLayout::addItem(QLayoutItem* item) {
  items_.push_back(item);
  invalidate();
}

int FieldFlowLayout::count() const { return static_cast<int>(items_.size()); }

QLayoutItem* FieldFlowLayout::itemAt(int index) const {
  return index >= 0 && index < count() ? items_[static_cast<size_t>(index)] : nullptr;
}

QLayoutItem* FieldFlowLayout::takeAt(int index) {
  if (index < 0 || index >= count()) return nullptr;
  QLayoutItem* item = items_[static_cast<size_t>(index)];
  items_.erase(items_.begin() + index);
  invalidate();
  return item;
}

Qt::Orientations FieldFlowLayout::expandingDirections() const { return Qt::Horizontal; }

bool FieldFlowLayout::hasHeightForWidth() const { return true; }

int FieldFlowLayout::heightForWidth(int width) const {
  if (width != cached_width_) {
    cached_width_ = width;
    cached_height_ = arrange(QRect(0, 0, width, 0), false);
  }
  return cached_height_;
}

void FieldFlowLayout::invalidate() {
  cached_width_ = -1;
  QLayout::invalidate();
}

int FieldFlowLayout::span(int width) const {
  return std::max(1, (width + kColumnGap + column_width_ - 1) / (column_width_ + kColumnGap));
}

int FieldFlowLayout::units() const {
  int units = 0;
  for (const QLayoutItem* item : items_) {
    if (!item->isEmpty()) units += span(item->sizeHint().width());
  }
  return units;
}

int FieldFlowLayout::width_of(int columns) const {
  const QMargins m = contentsMargins();
  return columns * column_width_ + (columns - 1) * kColumnGap + m.left() + m.right();
}

QSize FieldFlowLayout::minimumSize() const {
  // The widest field whole, and no fewer than the minimum columns; the height those take.
  const QMargins m = contentsMargins();
  int width = width_of(std::clamp(units(), 1, min_columns_));
  for (const QLayoutItem* item : items_) {
    if (!item->isEmpty()) width = std::max(width, item->minimumSize().width() + m.left() + m.right());
  }
  return QSize(width, heightForWidth(width));
}

QSize FieldFlowLayout::sizeHint() const {
  const int width = std::max(width_of(std::clamp(units(), 1, preferred_columns_)), minimumSize().width());
  return QSize(width, heightForWidth(width));
}

void FieldFlowLayout::setGeometry(const QRect& rect) {
  QLayout::setGeometry(rect);
  arrange(rect, true);
}

int FieldFlowLayout::arrange(const QRect& rect, bool place) const {
  const QRect area = rect.marginsRemoved(contentsMargins());
  const int columns = std::max(1, (area.width() + kColumnGap) / (column_width_ + kColumnGap));
  // The columns share the width: no ragged right edge.
  const int column = std::max(1, (area.width() - (columns - 1) * kColumnGap) / columns);
  struct Placed {
    QLayoutItem* item;
    int column;
    int span;
  };
  std::vector<Placed> row;
  int top = area.top();
  int row_height = 0;
  int next = 0;
  const auto finish_row = [&] {
    if (row.empty()) return;
    if (place) {
      for (const Placed& p : row) {
        const int width = p.span * column + (p.span - 1) * kColumnGap;
        p.item->setGeometry(QRect(area.left() + p.column * (column + kColumnGap), top, width, row_height));
      }
    }
    top += row_height + kRowGap;
    row.clear();
    row_height = 0;
    next = 0;
  };
  for (QLayoutItem* item : items_) {
    if (item->isEmpty()) continue;
    const int cells = std::min(span(item->sizeHint().width()), columns);
    if (next + cells > columns) finish_row();
    row.push_back({item, next, cells});
    next += cells;
    row_height = std::max(row_height, item->sizeHint().height());
  }
  finish_row();
  const int used = top == area.top() ? 0 : top - kRowGap - area.top();
  const QMargins m = contentsMargins();
  return used + m.top() + m.bottom();
}

}  // namespace stepscope::views
