#include "widgets/form_fields.h"

#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVariant>

#include <algorithm>
#include <cmath>

#include "core/config_error.h"

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

std::vector<double> parse_number_list(const QString& text, const std::string& key, const std::string& what,
                                      const std::string& expected, double low, double high, bool whole) {
  std::vector<double> out;
  for (const QString& part : text.split(QLatin1Char(','))) {
    const QString item = part.trimmed();
    bool ok = false;
    const double value = item.toDouble(&ok);
    if (!ok || !std::isfinite(value) || (whole && std::floor(value) != value) || value < low || value > high) {
      throw ConfigError(what + ": '" + item.toStdString() + "' is not " + expected, key);
    }
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
  }
  return out;
}

QLabel* make_error_line() {
  auto* line = new QLabel;
  line->setStyleSheet(QStringLiteral("color: #b00020;"));
  line->setWordWrap(true);
  line->setVisible(false);
  return line;
}

int add_labelled_column(QGridLayout* grid, const QString& label, QWidget* field) {
  // Row 1 holds the fields; its column count is the next free one (a label-less cell counts).
  int column = 0;
  while (grid->itemAtPosition(1, column) || grid->itemAtPosition(0, column)) ++column;
  grid->addWidget(new QLabel(label), 0, column);
  grid->addWidget(field, 1, column);
  return column;
}

void show_form_check(QLabel* error_line, QPushButton* run, const std::vector<QWidget*>& fields,
                     const std::vector<QWidget*>& wrong, const QString& error, bool ok, bool running) {
  error_line->setText(ok ? QString() : error);
  error_line->setVisible(!ok);
  flag_fields(fields, ok ? std::vector<QWidget*>() : wrong, error);
  run->setEnabled(running || ok);
}

void show_form_running(const std::vector<QWidget*>& fields, QPushButton* run, bool running) {
  for (QWidget* w : fields) w->setEnabled(!running);
  run->setText(running ? QObject::tr("Cancel") : QObject::tr("Run"));
}

}  // namespace stepscope::views
