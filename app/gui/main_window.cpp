#include "gui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QGuiApplication>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>

#include <algorithm>
#include <iostream>

#include "core/config_error.h"
#include "core/device.h"
#include "experiments/bench/bench_duration.h"
#include "experiments/bench/bench_inputs.h"
#include "export/file_output.h"
#include "gui/experiment_tab.h"
#include "gui/history_dock.h"
#include "gui/lab_tabs.h"
#include "gui/result_export.h"
#include "gui/splitter_state.h"
#include "registry/experiment_registry.h"
#include "runners/cpu_threads.h"
#include "runners/device_backend.h"
#include "widgets/result_views.h"
#include "widgets/run_panel.h"

namespace stepscope::gui {

namespace {

QString mib(int64_t bytes) { return QString::number(static_cast<double>(bytes) / (1024.0 * 1024.0), 'f', 1) + " MiB"; }

// Resident memory of this process, for the status bar of CPU runs.
int64_t resident_bytes() {
  QFile statm("/proc/self/statm");
  if (!statm.open(QIODevice::ReadOnly)) return -1;
  const QList<QByteArray> fields = statm.readAll().split(' ');
  return fields.size() > 1 ? fields[1].toLongLong() * 4096 : -1;
}

}  // namespace

MainWindow::MainWindow(const QString& history_path, QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("Stepscope"));
  setObjectName("mainWindow");
  panel_ = new views::RunPanel(*find_experiment("bench"));
  std::vector<views::DeviceChoice> devices;
  for (const auto& d : available_devices()) devices.push_back({d.id, d.name, d.memory_bytes});
  panel_->set_devices(devices);
  auto* dock = new QDockWidget(tr("Run"), this);
  dock->setObjectName("runDock");
  dock->setWidget(panel_);  // its fields scroll above Run where the screen is short
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(Qt::LeftDockWidgetArea, dock);

  const QString history_file = history_path.isEmpty() ? history::default_history_path() : history_path;
  const bool history_ok = history_.open(history_file, nullptr);
  history_dock_ = new HistoryDock(history_);
  auto* history_dock = new QDockWidget(tr("History"), this);
  history_dock->setObjectName("historyDock");
  history_dock->setWidget(history_dock_);
  addDockWidget(Qt::LeftDockWidgetArea, history_dock);
  tabifyDockWidget(dock, history_dock);
  dock->raise();
  connect(history_dock_, &HistoryDock::open_requested, this, [this](int64_t run) {
    QString error;
    if (!open_run(run, &error)) QMessageBox::warning(this, tr("Cannot open the run"), error);
  });
  connect(history_dock_, &HistoryDock::save_requested, this, [this](int64_t run) { save_run_file(run); });
  connect(history_dock_, &HistoryDock::compare_requested, this, &MainWindow::compare_runs);
  connect(history_dock_, &HistoryDock::open_file_requested, this, &MainWindow::ask_open_file);

  tabs_ = new QTabWidget;
  tabs_->setObjectName("resultTabs");
  tabs_->setDocumentMode(true);
  const auto experiment = [](const std::string& id) -> const ExperimentDescriptor& { return *find_experiment(id); };
  for (const auto& tab : views::make_result_views(experiment)) {
    tabs_->addTab(tab.view, tab.title);
    views_.push_back(tab.view);
    if (tab.bench_view != nullptr) bench_views_.push_back(tab.bench_view);
  }
  setCentralWidget(tabs_);

  progress_label_ = new QLabel(tr("Ready"));
  progress_label_->setObjectName("statusText");
  progress_ = new QProgressBar;
  progress_->setMaximumWidth(220);
  progress_->setVisible(false);
  device_label_ = new QLabel(QString::fromStdString(runtime_versions()));
  memory_label_ = new QLabel;
  queue_label_ = new QLabel;
  queue_label_->setObjectName("queueStatus");
  threads_label_ = new QLabel;
  threads_label_->setObjectName("threadsStatus");
  threads_label_->setToolTip(tr("LibTorch's threads for CPU work: Run > CPU threads..."));
  cancel_import_ = new QToolButton;
  cancel_import_->setObjectName("cancelImport");
  cancel_import_->setText(tr("Cancel import"));
  cancel_import_->setToolTip(tr("Stop reading the file (Esc); nothing of it is shown or kept"));
  cancel_import_->setVisible(false);
  connect(cancel_import_, &QToolButton::clicked, this, &MainWindow::cancel_import);
  statusBar()->addWidget(progress_label_, 1);
  statusBar()->addWidget(progress_);
  statusBar()->addWidget(cancel_import_);
  statusBar()->addPermanentWidget(queue_label_);
  statusBar()->addPermanentWidget(threads_label_);
  statusBar()->addPermanentWidget(memory_label_);
  statusBar()->addPermanentWidget(device_label_);
  auto* memory_timer = new QTimer(this);
  connect(memory_timer, &QTimer::timeout, this, [this] { update_memory_status(); });
  memory_timer->start(1000);
  update_memory_status();
  if (!history_ok) {
    // Runs still work; they are just not kept.
    progress_label_->setText(tr("History off: %1").arg(history_.why_closed()));
  }

  // The Attention and Precision tabs run their own experiments (after the status bar and history dock exist).
  experiment_tabs_ = attach_lab_tabs(
      views_, devices, history_, gate_, this,
      {[this](const QString& text) { progress_label_->setText(text); }, [this] { history_dock_->refresh(); },
       [this](const QString& message) { statusBar()->showMessage(message, 10000); }});
  connect(&gate_, &RunGate::changed, this, &MainWindow::update_queue_status);
  QSettings threads_settings;
  set_cpu_threads(threads_settings.value("run/cpu_threads", default_cpu_threads()).toInt(), false);
  build_menus();
  connect(panel_, &views::RunPanel::run_requested, this, [this](const schema::InputValues& values) {
    QString error;
    if (!run(values, &error)) panel_->form().show_status(tr("Cannot run: %1").arg(error));
  });
  connect(panel_, &views::RunPanel::cancel_requested, this, &MainWindow::cancel_run);
  connect(&session_, &RunSession::progress_changed, this, &MainWindow::on_progress);
  connect(&session_, &RunSession::outcome_ready, this, &MainWindow::on_outcome);
  connect(&session_, &RunSession::kernel_profile_changed, this,
          [this](std::shared_ptr<const profiling::KernelProfile> profile) {
            view_updates_.post([this, profile] {
              for (auto* view : bench_views_) view->show_live_profile(profile);
            });
          });
  connect(&session_, &RunSession::finished, this, &MainWindow::on_finished);
  connect(&import_, &ProfileImport::progress, this, [this](double fraction) {
    progress_->setRange(0, 1000);
    progress_->setValue(static_cast<int>(fraction * 1000));
  });
  connect(&import_, &ProfileImport::finished, this,
          [this](std::shared_ptr<const ImportResult> result) { on_import_finished(*result); });
  connect(&session_, &RunSession::history_changed, history_dock_, &HistoryDock::refresh_run);
  connect(&session_, &RunSession::history_problem, this, [this](const QString& message) {
    statusBar()->showMessage(message, 10000);
    history_problem_ = message;  // said again when the run ends: a result must not go unkept silently
  });

  // As large as asked, within the screen's free area (a laptop's 1280 x 720 included), leaving
  // the window manager room for the title bar.
  const QScreen* screen = QGuiApplication::primaryScreen();
  const QSize room = screen != nullptr ? screen->availableGeometry().size() - QSize(0, 48) : QSize(1400, 900);
  // A first session takes most of a large screen (2560 x 1440), never less than 1400 x 900 of it.
  const QSize most = room * 0.85;
  resize(QSize(std::max(1400, most.width()), std::max(900, most.height())).boundedTo(room));
  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  restore_splitters(*this, settings);
  tabs_->setCurrentIndex(settings.value("window/tab", 0).toInt());
  settings.beginGroup("pace");
  for (const QString& device : settings.childKeys()) paces_[device.toStdString()] = settings.value(device).toDouble();
  settings.endGroup();
  panel_->set_paces(paces_);
}

MainWindow::~MainWindow() = default;

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open run or PyTorch profile..."), QKeySequence::Open, this, &MainWindow::ask_open_file);
  file->addSeparator();
  QAction* export_action = file->addAction(tr("&Export tables and charts..."), this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export every table and chart into"));
    if (dir.isEmpty()) return;
    QString error;
    ExportReport report;
    if (!export_all(dir, &error, &report)) {
      QMessageBox::warning(this, tr("Export failed"), error);
    } else if (headless_) {
      std::cerr << "stepscope: " << export_summary(report, dir).toStdString() << '\n';
    } else {
      QMessageBox::information(this, tr("Exported"), export_summary(report, dir));
    }
  });
  export_action->setShortcut(QKeySequence(tr("Ctrl+E")));
  file->addAction(tr("Save &screenshot..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save screenshot"), "stepscope.png", "PNG (*.png)");
    if (path.isEmpty()) return;
    QString error;
    if (!save_screenshot(path, &error)) QMessageBox::warning(this, tr("Screenshot failed"), error);
  });
  for (auto* view : views_) file->addActions(view->file_actions());  // the Kernels tab's Perfetto trace
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  build_run_menu();
  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (auto* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About Stepscope"), this, [this] {
    QMessageBox::about(this, tr("About Stepscope"),
                       tr("<b>Stepscope</b> %1<br>Where the time and memory of Transformer training go.<br>%2<br>"
                          "Qt %3<br>MIT licence")
                           .arg(QApplication::applicationVersion(), QString::fromStdString(runtime_versions()),
                                QString::fromLatin1(qVersion())));
  });
}

void MainWindow::update_memory_status() {
  const auto configs = panel_->configs();
  const Device device = configs.empty() ? Device{} : configs.front().device;
  const bool on_cpu = device.is_cpu();
  const int64_t bytes = on_cpu ? resident_bytes() : allocated_bytes_now(device);
  memory_label_->setText(bytes < 0 ? QString()
                                   : tr("%1: %2 %3").arg(QString::fromStdString(to_string(device)), mib(bytes),
                                                         on_cpu ? tr("resident") : tr("allocated")));
}

bool MainWindow::export_all(const QString& dir, QString* error, ExportReport* report) {
  view_updates_.drain();  // what is exported is what the run measured, every outcome in
  std::vector<ExportTab> tabs;
  for (int i = 0; i < tabs_->count(); ++i) {
    auto* view = dynamic_cast<views::ResultView*>(tabs_->widget(i));
    if (view != nullptr) tabs.push_back({tabs_->tabText(i).remove(QLatin1Char('&')), view});
  }
  return export_views(tabs, dir, report, error);
}

QString MainWindow::history_path() const { return history_.path(); }

bool MainWindow::check_export(const QString& dir, bool with_windows, QString* error) const {
  QStringList files = export_files(views_, dir);
  for (int i = 0; with_windows && i < tabs_->count(); ++i) files << window_file(dir, i);
  return check_export_files(dir, files, error);
}

bool MainWindow::save_screenshot(const QString& path, QString* error) {
  return views::write_png_file(grab().toImage(), path, error);
}

QString MainWindow::window_file(const QString& dir, int tab) const {
  return QDir(dir).filePath("window_" + tabs_->tabText(tab).toLower().remove(QLatin1Char('&')) + ".png");
}

bool MainWindow::save_tab_screenshots(const QString& dir, QString* error) {
  QStringList files;
  for (int i = 0; i < tabs_->count(); ++i) files << window_file(dir, i);
  if (!check_export_files(dir, files, error)) return false;
  const int current = tabs_->currentIndex();
  bool ok = true;
  for (int i = 0; i < tabs_->count() && ok; ++i) {
    tabs_->setCurrentIndex(i);
    QApplication::processEvents();  // lay out and draw the tab before grabbing it
    ok = save_screenshot(window_file(dir, i), error);
  }
  tabs_->setCurrentIndex(current);
  return ok;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  // Nothing queued starts while the window closes.
  for (auto* tab : experiment_tabs_) {
    if (tab->is_queued()) tab->cancel();
  }
  if (is_queued()) cancel_run();
  session_.cancel();
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  save_splitters(*this, settings);
  settings.setValue("window/tab", tabs_->currentIndex());
  for (const auto& [device, pace] : paces_) settings.setValue(QString::fromStdString("pace/" + device), pace);
  QMainWindow::closeEvent(event);
}

}  // namespace stepscope::gui
