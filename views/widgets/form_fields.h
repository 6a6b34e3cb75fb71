// What the app's forms share: fields that keep their help text, and the red frame with the
// reason on the fields a configuration error names (restoring the help once they are valid).
#pragma once

#include <QString>

#include <string>
#include <vector>

class QGridLayout;
class QLabel;
class QPushButton;
class QSpinBox;
class QWidget;

namespace stepscope::views {

// A spin box with its range, value and help tooltip.
QSpinBox* help_spin(int low, int high, int value, const QString& tip);
// Gives `widget` its help tooltip, kept for when an error's tooltip goes again.
void set_help(QWidget* widget, const QString& tip);
// Frames the `wrong` fields in red with `error` as their tooltip; the rest of `fields` get
// their help back.
void flag_fields(const std::vector<QWidget*>& fields, const std::vector<QWidget*>& wrong, const QString& error);
// The red line under a form that says what is wrong; hidden until something is.
QLabel* make_error_line();
// Puts `field` under its `label` in the next column of rows 0 and 1 of `grid`; returns the column.
int add_labelled_column(QGridLayout* grid, const QString& label, QWidget* field);

// A form checked as it is typed: the error line shows `error` (hidden when `ok`), the `wrong`
// fields are framed, and Run is enabled for a good request (always, as Cancel, while running).
void show_form_check(QLabel* error_line, QPushButton* run, const std::vector<QWidget*>& fields,
                     const std::vector<QWidget*>& wrong, const QString& error, bool ok, bool running);
// While running the fields are disabled and the button reads Cancel; afterwards Run.
void show_form_running(const std::vector<QWidget*>& fields, QPushButton* run, bool running);

// A comma list of numbers in [low, high] (whole ones only when `whole`), repeats dropped:
// "1, 10,100" -> {1, 10, 100}. Anything else throws ConfigError("<what>: '<item>' is not
// <expected>", key), so the form frames the field of that key.
std::vector<double> parse_number_list(const QString& text, const std::string& key, const std::string& what,
                                      const std::string& expected, double low, double high, bool whole);

}  // namespace stepscope::views
