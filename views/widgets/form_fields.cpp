#include "widgets/form_fields.h"

#include <QLabel>
#include <QVariant>

#include <algorithm>

#include "core/config_error.h"

namespace stepscope::views {

void set_help(QWidget* widget, const QString& tip) {
  widget->setToolTip(tip);
  widget->setProperty("help", tip);
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

QLabel* make_error_line() {
  auto* line = new QLabel;
  line->setStyleSheet(QStringLiteral("color: #b00020;"));
  line->setWordWrap(true);
  line->setVisible(false);
  return line;
}

}  // namespace stepscope::views
