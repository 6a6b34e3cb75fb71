// Item-data roles shared by the views' models.
#pragma once

#include <Qt>

namespace stepscope::views {

// The exact value behind a cell (a number in its base unit: ns, bytes, ms), for sorting and
// export; DisplayRole holds the formatted text.
// On a horizontal header: the column's name in exports (the CLI's CSV name), where the
// header shows a friendlier label.
inline constexpr int ExactValueRole = Qt::UserRole + 1;
// The cell exactly as the CLI's CSV writes it (the column's CSV format), where a model knows.
inline constexpr int CsvTextRole = Qt::UserRole + 2;

}  // namespace stepscope::views
