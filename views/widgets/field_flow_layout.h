// A form's fields flowed over columns of one width: as many columns as the width holds, a
// field wider than a column spanning several, a new row where the next one does not fit.
// Narrow it and the fields wrap into more rows (its height follows its width); widen it and
// they spread out. Forms built one above the other with the same column width line up.
#pragma once

#include <QLayout>

#include <vector>

namespace stepscope::views {

class FieldFlowLayout : public QLayout {
 public:
  // `column_width`: the narrowest column. It is never narrower than `min_columns` (fewer when
  // its fields take fewer), so that many fields do not end up in one tall column; its size
  // hint asks for `preferred_columns`.
  FieldFlowLayout(int column_width, int min_columns, int preferred_columns, QWidget* parent = nullptr);
  ~FieldFlowLayout() override;

  void addItem(QLayoutItem* item) override;
  int count() const override;
  QLayoutItem* itemAt(int index) const override;
  QLayoutItem* takeAt(int index) override;

  Qt::Orientations expandingDirections() const override;
  bool hasHeightForWidth() const override;
  int heightForWidth(int width) const override;
  QSize minimumSize() const override;
  QSize sizeHint() const override;
  void setGeometry(const QRect& rect) override;
  void invalidate() override;

  static constexpr int kColumnGap = 14;
  static constexpr int kRowGap = 8;

 private:
  // Places the items in `rect` (when `place`); returns the height they take, margins included.
  int arrange(const QRect& rect, bool place) const;
  // Columns a field of preferred width `width` takes.
  int span(int width) const;
  // The columns its fields take in one row.
  int units() const;
  // The width of `columns` columns, margins included.
  int width_of(int columns) const;

  std::vector<QLayoutItem*> items_;
  int column_width_;
  int min_columns_;
  int preferred_columns_;
  mutable int cached_width_ = -1;
  mutable int cached_height_ = -1;
};

}  // namespace stepscope::views
