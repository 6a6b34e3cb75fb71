#include "gui/result_export.h"

#include <QDir>
#include <QFileInfo>

#include "charts/chart_export.h"
#include "export/file_output.h"
#include "export/table_export.h"

namespace stepscope::gui {

namespace {
const QSize kChartSize(1400, 800);
}  // namespace

QStringList export_files(const std::vector<views::ResultView*>& views, const QString& dir) {
  const QDir out(dir);
  QStringList files;
  for (auto* view : views) {
    for (const auto& table : view->tables()) files << out.filePath(table.name + ".csv");
    for (const auto& chart : view->charts()) files << out.filePath(chart.name + ".png");
  }
  return files;
}

bool check_export_files(const QString& dir, const QStringList& files, QString* error) {
  if (!views::check_output_folder(dir, error)) return false;
  if (!QFileInfo(dir).isDir()) return true;  // a new folder: nothing in it to refuse
  for (const QString& file : files) {
    if (!views::check_output_file(file, error)) return false;
  }
  return true;
}

bool export_views(const std::vector<views::ResultView*>& views, const QString& dir, QString* error) {
  if (!check_export_files(dir, export_files(views, dir), error)) return false;
  if (!QDir().mkpath(dir)) {
    if (error) *error = QStringLiteral("cannot create the folder %1").arg(dir);
    return false;
  }
  const QDir out(dir);
  for (auto* view : views) {
    view->prepare_export();
    for (const auto& table : view->tables()) {
      if (!views::write_table_csv(*table.model, out.filePath(table.name + ".csv"), error)) return false;
    }
    for (const auto& chart : view->charts()) {
      if (!views::save_chart_png(*chart.view, out.filePath(chart.name + ".png"), error, kChartSize)) return false;
    }
  }
  return true;
}

}  // namespace stepscope::gui
