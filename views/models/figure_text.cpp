#include "models/figure_text.h"

#include <QStringList>

#include "schema/value_format.h"

namespace stepscope::views {

QString value_with_unit(double value, schema::ColumnKind kind) {
  return QString::fromStdString(schema::display_text(value, kind));  // every kind's text carries its unit
}

QString key_figures_text(const std::vector<KeyFigure>& figures) {
  QStringList parts;
  for (const auto& f : figures) {
    const QString low = value_with_unit(f.low, f.kind), high = value_with_unit(f.high, f.kind);
    parts << QString::fromStdString(f.label) + " " + (low == high ? low : low + QStringLiteral(" – ") + high);
  }
  return parts.join(QStringLiteral(" · "));
}

}  // namespace stepscope::views
