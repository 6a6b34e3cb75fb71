#include "widgets/form_fields.h"

#include <QSpinBox>
#include <QVariant>

#include <algorithm>

namespace stepscope::views {

void set_help(QWidget* widget, const QString& tip) {
  widget->setToolTip(tip);
  widget->setProperty("help", tip);
}

QSpinBox* help_spin(int low, int high, int value, const QString& tip) {
  auto* box = new QSpinBox;
  box->setRange(low, high);
  box->setValue(value);
  box->setAccelerated(true);
  set_help(box, tip);
  return box;
}

void flag_fields(const std::vector<QWidget*>& fields, const std::vector<QWidget*>& wrong, const QString& error) {
  for (QWidget* field : fields) {
    const bool invalid = std::find(wrong.begin(), wrong.end(), field) != wrong.end();
    if (field->property("invalid").toBool() == invalid) continue;
    field->setProperty("invalid", invalid);
    field->setStyleSheet(invalid ? QStringLiteral("border: 1px solid #b00020;") : QString());
    field->setToolTip(invalid ? error : field->property("help").toString());
  }
}

}  // namespace stepscope::views
