// What the window writes on an export (File > Export, --export DIR): every tab's tables as CSV
// and charts as PNG, named after them. Every target is checked by the command line's rules
// (views/export/file_output.h) before the first file is written, so a read-only file stops
// the export with its name instead of being replaced, and nothing is half exported.
#pragma once

#include <QString>
#include <QStringList>

#include <vector>

#include "widgets/result_view.h"

namespace stepscope::gui {

// The files an export of `views` into `dir` writes: DIR/<table>.csv, DIR/<chart>.png.
QStringList export_files(const std::vector<views::ResultView*>& views, const QString& dir);
// `dir` can be made or written into and each of `files` written; false with `error` naming the
// first that cannot.
bool check_export_files(const QString& dir, const QStringList& files, QString* error);
// Checks, creates `dir`, then writes every table and chart; charts at one size whatever the
// window's, so exports of runs compare.
bool export_views(const std::vector<views::ResultView*>& views, const QString& dir, QString* error);

}  // namespace stepscope::gui
