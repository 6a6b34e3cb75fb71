// What the window writes on an export (File > Export, --export DIR): every tab's tables as CSV
// and charts as PNG, named after them. Every target is checked by the command line's rules
// (views/export/file_output.h) before the first file is written, so a read-only file stops
// the export with its name instead of being replaced, and nothing is half exported. An
// experiment with nothing measured is skipped, and said to be: no header-only CSV, no empty PNG.
#pragma once

#include <QString>
#include <QStringList>

#include <vector>

#include "widgets/result_view.h"

namespace stepscope::gui {

// A tab as the export names it.
struct ExportTab {
  QString title;  // "Benchmark", "Attention"
  views::ResultView* view;
};

// What an export wrote, and what it skipped for having nothing measured.
struct ExportReport {
  QStringList written;  // file paths, in order
  QStringList skipped;  // tabs or experiments: "Memory", "Collective benchmark"
};

// The files an export of `views` into `dir` may write (whatever has been measured):
// DIR/<table>.csv, DIR/<chart>.png.
QStringList export_files(const std::vector<views::ResultView*>& views, const QString& dir);
// `dir` can be made or written into and each of `files` written; false with `error` naming the
// first that cannot.
bool check_export_files(const QString& dir, const QStringList& files, QString* error);
// Checks every file it may write, creates `dir`, then writes the tables that hold rows and the
// charts of the experiments that measured any (an experiment of a tab of several counts alone);
// charts at one size whatever the window's, so exports of runs compare.
bool export_views(const std::vector<ExportTab>& tabs, const QString& dir, ExportReport* report, QString* error);
// "Wrote 7 files into DIR: a.csv, b.png, ...\nSkipped (nothing measured): Attention, DDP".
QString export_summary(const ExportReport& report, const QString& dir);

}  // namespace stepscope::gui
