#include "gui/result_export.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

#include "charts/chart_export.h"
#include "export/file_output.h"
#include "export/table_export.h"
#include "widgets/experiment_view.h"

namespace stepscope::gui {

namespace {

const QSize kChartSize(1400, 800);

// What an export counts as one experiment: each of a tab's experiments, or the tab itself.
struct ExportUnit {
  QString name;
  const views::ResultView* view;
};

std::vector<ExportUnit> units_of(const ExportTab& tab) {
  std::vector<ExportUnit> units;
  if (auto* own = dynamic_cast<const views::ExperimentView*>(tab.view)) return {{tab.title, own}};
  for (auto* experiment : tab.view->findChildren<views::ExperimentView*>()) {
    units.push_back({QString::fromStdString(experiment->descriptor().name), experiment});
  }
  if (units.empty()) units.push_back({tab.title, tab.view});
  return units;
}

bool has_rows(const QAbstractItemModel& model) { return model.rowCount() > 0; }

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

bool export_views(const std::vector<ExportTab>& tabs, const QString& dir, ExportReport* report, QString* error) {
  std::vector<views::ResultView*> views;
  for (const auto& tab : tabs) views.push_back(tab.view);
  if (!check_export_files(dir, export_files(views, dir), error)) return false;
  if (!QDir().mkpath(dir)) {
    if (error) *error = QStringLiteral("cannot create the folder %1").arg(dir);
    return false;
  }
  const QDir out(dir);
  ExportReport done;
  for (const auto& tab : tabs) {
    tab.view->prepare_export();
    for (const ExportUnit& unit : units_of(tab)) {
      const auto tables = unit.view->tables();
      const bool measured = std::any_of(tables.begin(), tables.end(), [](const auto& t) { return has_rows(*t.model); });
      if (!measured) {
        done.skipped << unit.name;
        continue;
      }
      for (const auto& table : tables) {
        if (!has_rows(*table.model)) continue;  // no header-only CSV
        const QString path = out.filePath(table.name + ".csv");
        if (!views::write_table_csv(*table.model, path, error)) return false;
        done.written << path;
      }
      for (const auto& chart : unit.view->charts()) {
        const QString path = out.filePath(chart.name + ".png");
        if (!views::save_chart_png(*chart.view, path, error, kChartSize)) return false;
        done.written << path;
      }
    }
  }
  if (report) *report = done;
  return true;
}

QString export_summary(const ExportReport& report, const QString& dir) {
  QStringList names;
  for (const QString& path : report.written) names << QFileInfo(path).fileName();
  QString text = report.written.isEmpty()
                     ? QStringLiteral("Nothing to export into %1: no experiment has measured anything yet").arg(dir)
                     : QStringLiteral("Wrote %1 %2 into %3: %4")
                           .arg(report.written.size())
                           .arg(report.written.size() == 1 ? QStringLiteral("file") : QStringLiteral("files"), dir,
                                names.join(QStringLiteral(", ")));
  if (!report.skipped.isEmpty() && !report.written.isEmpty()) {
    text += QStringLiteral("\nSkipped (nothing measured): %1").arg(report.skipped.join(QStringLiteral(", ")));
  }
  return text;
}

}  // namespace stepscope::gui
