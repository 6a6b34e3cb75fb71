#include "gui/profile_import.h"

#include <QDateTime>
#include <QFileInfo>

#include <exception>
#include <new>

#include "charts/memory_chart_view.h"
#include "history/run_history.h"
#include "runners/device_backend.h"

namespace stepscope::gui {

namespace {

constexpr int kProgressSteps = 1000;  // the share done, in thousandths, through Progress

}  // namespace

QString import_label(const QString& path) { return QObject::tr("import: %1").arg(QFileInfo(path).fileName()); }

ProfileImport::ProfileImport(QObject* parent) : QObject(parent) {
  qRegisterMetaType<std::shared_ptr<const ImportResult>>();
  connect(&worker_, &WorkerThread::progress, this, [this](const Progress& p) {
    emit progress(static_cast<double>(p.step) / kProgressSteps);
  });
}

void ProfileImport::start(const QString& path, imports::ProfileKind kind, const QString& history,
                          const QString& label) {
  if (is_running()) return;
  auto result = std::make_shared<ImportResult>();  // the work's, then `done`'s
  result->path = path;
  worker_.start(
      [result, kind, history, label](WorkerReports& reports, const CancelFlag& cancel) {
        const std::string file = result->path.toStdString();
        imports::ImportOptions options;
        options.progress = [&](double fraction) {
          Progress p;
          p.config_label = file;
          p.step = static_cast<int>(fraction * kProgressSteps);
          p.steps_in_phase = kProgressSteps;
          reports.on_progress(p);
          return !cancel.is_cancelled();
        };
        try {
          result->record = imports::import_profile(file, kind, options);
        } catch (const imports::ImportCancelled&) {
          result->cancelled = true;
          return;
        } catch (const imports::ImportError& e) {
          result->error = QString::fromStdString(e.what());
          return;
        } catch (const std::bad_alloc&) {
          result->error = QObject::tr("%1: too large to import into this machine's memory").arg(result->path);
          return;
        } catch (const std::exception& e) {
          result->error = QStringLiteral("%1: %2").arg(result->path, QString::fromUtf8(e.what()));
          return;
        }
        if (cancel.is_cancelled()) {  // cancelled as the reading ended: neither shown nor kept
          result->cancelled = true;
          return;
        }
        RunRecord& record = result->record;
        const std::string taken = record.environment.started_at;  // when the profile was taken, where it says
        record.environment = {STEPSCOPE_VERSION, runtime_versions(), "stepscope (desktop): open " + file,
                              taken.empty() ? QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString()
                                            : taken};
        for (const auto& entry : record.entries) {
          views::RunOutcome outcome{std::make_shared<const BenchResult>(entry.result), entry.timeline, nullptr};
          if (outcome.timeline) {
            // Here, not on the GUI thread: a snapshot's timeline holds a point per allocator event.
            outcome.memory_chart = std::make_shared<const views::MemoryChartData>(
                views::build_memory_chart_data(*outcome.timeline, views::MemoryChartView::kDefaultMaxPoints));
          }
          result->outcomes.push_back(std::move(outcome));
        }
        if (history.isEmpty()) return;
        history::RunHistory kept;  // its connection belongs to this thread
        QString why;
        if (kept.attach(history, &why)) result->history_run = kept.import_record(record, label, &why);
        if (result->history_run == 0) result->unkept = why;
      },
      [this, result] { emit finished(result); });
}

}  // namespace stepscope::gui
