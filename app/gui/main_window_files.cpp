// The main window's files: File > Open and --open-file, whatever the file holds (a run record,
// a torch.profiler trace, a CUDA memory snapshot; imports::sniff_profile), the import's progress
// and Cancel in the status bar, and its result in the tabs and the History.
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QMetaObject>
#include <QProgressBar>
#include <QToolButton>

#include <iostream>

#include "gui/history_dock.h"
#include "gui/main_window.h"
#include "widgets/kernels_view.h"
#include "widgets/memory_view.h"

namespace stepscope::gui {

void MainWindow::ask_open_file() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open a run or a PyTorch profile"), {},
      tr("Runs and PyTorch profiles (*.json *.json.gz *.gz *.pickle *.pkl);;All files (*)"));
  if (!path.isEmpty()) open_file(path, true);
}

void MainWindow::open_file(const QString& path, bool report_errors) {
  const auto refuse = [&](const QString& why) { end_open(path, false, why, report_errors); };
  if (session_.is_running() || is_importing()) {
    return refuse(tr("%1: cannot be opened while %2").arg(path, is_importing() ? tr("another file is imported")
                                                                               : tr("a run is in progress")));
  }
  imports::ProfileKind kind;
  try {
    kind = imports::sniff_profile(path.toStdString());
  } catch (const imports::ImportError& e) {
    return refuse(QString::fromStdString(e.what()));
  }
  if (kind == imports::ProfileKind::run_record) {
    QString error;
    const bool ok = open_run_file(path, &error);
    return end_open(path, ok, error, report_errors);
  }
  import_reports_errors_ = report_errors;
  progress_->setRange(0, 0);
  progress_->setVisible(true);
  cancel_import_->setVisible(true);
  progress_label_->setText(tr("Importing %1 (%2)...").arg(QFileInfo(path).fileName(), QString::fromStdString(to_string(kind))));
  import_.start(path, kind, history_.is_open() ? history_.path() : QString(), import_label(path));
}

void MainWindow::cancel_import() {
  if (!is_importing()) return;
  import_.cancel();
  progress_label_->setText(tr("Cancelling the import..."));
}

void MainWindow::on_import_finished(const ImportResult& result) {
  progress_->setVisible(false);
  cancel_import_->setVisible(false);
  const QString name = QFileInfo(result.path).fileName();
  if (result.cancelled) {
    progress_label_->setText(tr("Import of %1 cancelled: nothing shown or kept").arg(name));
    return end_open(result.path, false, tr("%1: cancelled").arg(result.path), false);
  }
  if (!result.error.isEmpty()) {
    progress_label_->setText(tr("Cannot open %1").arg(name));
    return end_open(result.path, false, result.error, import_reports_errors_);
  }
  show_record(result.record, import_label(result.path), result.outcomes);
  history_dock_->refresh();
  const QString why = !history_.is_open() ? history_.why_closed() : result.unkept;
  report_unkept(why.isEmpty() ? QString() : tr("not kept in the history: %1").arg(why));
  end_open(result.path, true, {}, false);
}

void MainWindow::end_open(const QString& path, bool ok, const QString& error, bool report_errors) {
  if (!ok && report_errors) {
    if (headless_) {
      std::cerr << "stepscope: " << error.toStdString() << '\n';
    } else {
      QMessageBox::warning(this, tr("Cannot open the file"), error);
    }
  }
  // After the caller's own work: a script opening files one after the other starts the next here.
  QMetaObject::invokeMethod(this, [this, path, ok, error] { emit file_opened(path, ok, error); }, Qt::QueuedConnection);
}

QWidget* MainWindow::imported_view(const BenchResult& result) const {
  const bool memory = result.memory_timeline != nullptr && result.kernel_profile == nullptr;
  for (auto* view : bench_views_) {
    if (memory ? qobject_cast<views::MemoryView*>(view) != nullptr : qobject_cast<views::KernelsView*>(view) != nullptr) {
      return view;
    }
  }
  return nullptr;
}

}  // namespace stepscope::gui
