// The window's Run menu and keys: F5 / Ctrl+R run the current tab's experiment, Esc cancels
// (a queued run or the one in progress), Ctrl+1...9 and 0 bring a tab forward; the CPU threads
// setting; the status bar's queue and threads. Apart from the window's construction.
#include <QAction>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QSettings>
#include <QTabWidget>

#include "gui/experiment_tab.h"
#include "gui/main_window.h"
#include "runners/cpu_threads.h"
#include "runners/device_backend.h"
#include "widgets/experiment_form.h"
#include "widgets/experiment_view.h"
#include "widgets/result_view.h"
#include "widgets/run_panel.h"

namespace stepscope::gui {

namespace {

// The keys, declared once: the menu binds them, the Run/Cancel buttons' tooltips name them.
const QList<QKeySequence> kRunKeys = {QKeySequence(Qt::Key_F5), QKeySequence(Qt::CTRL | Qt::Key_R)};
const QKeySequence kCancelKey(Qt::Key_Escape);

QString key_text(const QList<QKeySequence>& keys) {
  QStringList texts;
  for (const auto& key : keys) texts << key.toString(QKeySequence::NativeText);
  return texts.join(QStringLiteral(", "));
}

QString count_text(int n, const QString& one, const QString& many) { return n == 1 ? one : many.arg(n); }

}  // namespace

void MainWindow::build_run_menu() {
  QMenu* menu = menuBar()->addMenu(tr("&Run"));
  QAction* run = menu->addAction(tr("&Run the current tab's experiment"), this, [this] { run_current_tab(); });
  run->setShortcuts(kRunKeys);
  QAction* cancel = menu->addAction(tr("&Cancel the run (or the queued one)"), this, [this] { cancel_current(); });
  cancel->setShortcut(kCancelKey);
  menu->addSeparator();
  menu->addAction(tr("CPU &threads..."), this, [this] {
    bool ok = false;
    const int threads = QInputDialog::getInt(
        this, tr("CPU threads"),
        tr("LibTorch's threads for CPU work (this machine has %1):").arg(count_text(cpu_core_count(), tr("1 core"), tr("%1 cores"))),
        cpu_threads(), 1, cpu_threads_input().max_integer, 1, &ok);
    if (ok) set_cpu_threads(threads, true);
  });
  // Ctrl+1 ... Ctrl+9, then Ctrl+0: the tabs in order, as the digits lie on the keyboard.
  for (int i = 0; i < std::min(10, tabs_->count()); ++i) {
    auto* go = new QAction(this);
    go->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(i < 9 ? Qt::Key_1 + i : Qt::Key_0)));
    connect(go, &QAction::triggered, this, [this, i] { tabs_->setCurrentIndex(i); });
    addAction(go);
  }
  const QString run_hint = tr("Run (%1; Return in a field)").arg(key_text(kRunKeys));
  const QString cancel_hint = tr("Cancel (%1)").arg(kCancelKey.toString(QKeySequence::NativeText));
  panel_->form().set_shortcut_hints(run_hint, cancel_hint);
  for (auto* tab : experiment_tabs_) {
    if (auto* form = tab->view()->findChild<views::ExperimentForm*>()) form->set_shortcut_hints(run_hint, cancel_hint);
  }
}

ExperimentTab* MainWindow::current_experiment() const {
  QWidget* current = tabs_->currentWidget();
  ExperimentTab* shown = nullptr;
  for (auto* tab : experiment_tabs_) {
    auto* view = tab->view();
    if (view != current && !current->isAncestorOf(view)) continue;
    // A tab of several experiments: the one whose sub-tab is shown.
    if (view->isVisible() || view == current) return tab;
    if (shown == nullptr) shown = tab;
  }
  return shown;
}

bool MainWindow::run_current_tab() {
  if (auto* tab = current_experiment()) return tab->view()->request_run();
  for (auto* view : bench_views_) {
    if (view == tabs_->currentWidget()) return panel_->form().request_run();
  }
  progress_label_->setText(tr("Nothing runs from the %1 tab").arg(tabs_->tabText(tabs_->currentIndex()).remove('&')));
  return false;
}

void MainWindow::cancel_current() {
  if (is_importing()) return cancel_import();  // what the status bar shows in progress
  ExperimentTab* tab = current_experiment();
  const bool bench_tab = tab == nullptr && std::find(bench_views_.begin(), bench_views_.end(),
                                                     tabs_->currentWidget()) != bench_views_.end();
  if (tab != nullptr && (tab->is_queued() || tab->is_running())) {
    tab->cancel();
  } else if (bench_tab && bench_ticket_ != 0) {
    cancel_run();
  } else if (session_.is_running()) {
    cancel_run();  // the run in progress, whichever tab shows
  } else {
    for (auto* other : experiment_tabs_) {
      if (other->is_running()) other->cancel();
    }
  }
}

void MainWindow::set_cpu_threads(int threads, bool remember) {
  threads = std::clamp(threads, 1, static_cast<int>(cpu_threads_input().max_integer));
  stepscope::set_cpu_threads(threads);
  if (remember) QSettings().setValue("run/cpu_threads", threads);
  update_threads_status();
  // The CPU's name in every device field says its threads ("CPU (1 thread of 2 cores)").
  std::vector<views::DeviceChoice> devices;
  for (const auto& d : available_devices()) devices.push_back({d.id, d.name, d.memory_bytes});
  panel_->set_devices(devices);
  for (auto* view : findChildren<views::ExperimentView*>()) view->set_devices(devices);
}

void MainWindow::update_threads_status() {
  threads_label_->setText(tr("CPU: %1 of %2")
                              .arg(count_text(cpu_threads(), tr("1 thread"), tr("%1 threads")),
                                   count_text(cpu_core_count(), tr("1 core"), tr("%1 cores"))));
}

void MainWindow::update_queue_status() {
  const QStringList queued = gate_.queued_labels();
  queue_label_->setText(queued.isEmpty() ? QString()
                                         : tr("Queued behind %1: %2").arg(gate_.running_label(), queued.join("; ")));
}

}  // namespace stepscope::gui
