// Tables leave the application as CSV files or as tab-separated text on the clipboard,
// exactly as the model displays them (sorted and filtered through any proxy).
#pragma once

#include <QModelIndexList>
#include <QString>

class QAbstractItemModel;

namespace stepscope::views {

// Header row, then every row of `model`; fields quoted where CSV needs it. The value written
// is ExactValueRole where the model gives one (full-precision numbers), else DisplayRole.
QString table_to_csv(const QAbstractItemModel& model);
// Writes table_to_csv(model) to `path` (export/file_output.h: a read-only file is refused);
// false with `error` set when the file cannot be written.
bool write_table_csv(const QAbstractItemModel& model, const QString& path, QString* error);
// The selected cells as rows of tab-separated text (the header row first), for pasting
// into a spreadsheet.
QString selection_to_tsv(const QAbstractItemModel& model, const QModelIndexList& selected);

}  // namespace stepscope::views
