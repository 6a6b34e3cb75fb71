// What the app's forms share: fields that keep their help text, and the red frame with the
// reason on the fields a configuration error names (restoring the help once they are valid).
#pragma once

#include <QString>

#include <string>
#include <vector>

class QLabel;
class QWidget;

namespace stepscope::views {

// Gives `widget` its help tooltip, kept for when an error's tooltip goes again.
void set_help(QWidget* widget, const QString& tip);
// Frames the `wrong` fields in red with `error` as their tooltip; the rest of `fields` get
// their help back.
void flag_fields(const std::vector<QWidget*>& fields, const std::vector<QWidget*>& wrong, const QString& error);
// The red line under a form that says what is wrong; hidden until something is.
QLabel* make_error_line();

}  // namespace stepscope::views
