// The desktop application. Its command line takes the run flags of `stepscope-cli bench`
// plus --run/--export/--screenshot/--quit, so scripts and tests can drive the real window.
#include <QApplication>
#include <QIcon>
#include <QTimer>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "core/config_error.h"
#include "export/file_output.h"
#include "gui/gui_options.h"
#include "gui/main_window.h"
#include "experiments/bench/bench_inputs.h"
#include "experiments/bench/step_benchmark.h"
#include "runners/device_backend.h"
#include "widgets/run_panel.h"

namespace {

bool has_display() {
  const char* platform = std::getenv("QT_QPA_PLATFORM");
  if (platform && *platform) return true;  // offscreen, xcb with a given display, ...
  return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace stepscope;
  const std::vector<std::string> args(argv + 1, argv + argc);
  gui::GuiOptions options;
  std::vector<BenchConfig> configs;
  try {
    options = gui::parse_gui_options(args);
    if (options.help) {
      std::cout << gui::gui_usage();
      return 0;
    }
    if (options.version) {
      std::cout << "stepscope " << STEPSCOPE_VERSION << '\n' << runtime_versions() << "\nQt " << qVersion() << '\n';
      return 0;
    }
    if (options.bench) configs = expand(bench_spec(*options.bench));
  } catch (const std::exception& e) {
    std::cerr << "stepscope: error: " << e.what() << "\n" << gui::gui_usage();
    return 2;
  }
  if (options.run) {
    // What cannot run here (a GPU this machine lacks, a precision without autocast) is said
    // before any window opens, as the command line says it.
    try {
      for (const auto& config : configs) check_runnable(config);
    } catch (const ConfigError& e) {
      std::cerr << "stepscope: error: " << e.what() << '\n';
      return 2;
    }
  }
  if (!has_display()) {
    std::cerr << "stepscope: no display. Run it offscreen with QT_QPA_PLATFORM=offscreen (with --run, --export,\n"
                 "--screenshot and --quit), or use the command line: stepscope-cli bench --help\n";
    return 2;
  }
  QApplication app(argc, argv);
  QApplication::setOrganizationName("Stepscope");
  QApplication::setApplicationName("Stepscope");
  QApplication::setApplicationVersion(STEPSCOPE_VERSION);
  // The installed desktop entry and icon (resources/): the taskbar ties the window to them.
  QGuiApplication::setDesktopFileName(QStringLiteral("io.github.stepscope.Stepscope"));
  QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral("io.github.stepscope.Stepscope")));
  gui::MainWindow window(QString::fromStdString(options.history_path));
  // Scripted runs never wait for a click: problems go to stderr and the exit status.
  window.set_headless(options.quit);
  if (options.cpu_threads) window.set_cpu_threads(*options.cpu_threads, false);  // this start's only
  if (options.bench) window.run_panel().set_values(*options.bench);
  // Output files by the command line's rules, before anything runs: a read-only file is
  // refused by name, never replaced after a long run, and so is a file the app reads.
  for (const auto& file : options.open_files) views::protect_input(QStringLiteral("--open-file"), QString::fromStdString(file));
  views::protect_input(QStringLiteral("the run history"), window.history_path());
  QString refused;
  if (!options.export_dir.empty() && !window.check_export(QString::fromStdString(options.export_dir), true, &refused)) {
    std::cerr << "stepscope: error: --export: " << refused.toStdString() << '\n';
    return 2;
  }
  if (!options.screenshot_path.empty() &&
      !views::check_output_file(QString::fromStdString(options.screenshot_path), &refused)) {
    std::cerr << "stepscope: error: --screenshot: " << refused.toStdString() << '\n';
    return 2;
  }
  window.show();
  int status = 0;
  const auto finish = [&](bool complete) {
    QString error;
    const QString export_dir = QString::fromStdString(options.export_dir);
    gui::ExportReport report;
    if (!options.export_dir.empty() &&
        !(window.export_all(export_dir, &error, &report) && window.save_tab_screenshots(export_dir, &error))) {
      std::cerr << "stepscope: export failed: " << error.toStdString() << '\n';
      complete = false;
    } else if (!options.export_dir.empty()) {
      // Where it wrote and what: the window_<tab>.png screenshots besides.
      std::cerr << "stepscope: " << gui::export_summary(report, export_dir).toStdString()
                << "\nstepscope: and a screenshot of each tab (window_<tab>.png)\n";
    }
    if (!options.screenshot_path.empty() &&
        !window.save_screenshot(QString::fromStdString(options.screenshot_path), &error)) {
      std::cerr << "stepscope: screenshot failed: " << error.toStdString() << '\n';
      complete = false;
    }
    status = complete ? 0 : 1;
    if (options.quit) QApplication::exit(status);
  };
  QObject::connect(&window, &gui::MainWindow::run_finished, &window, finish);
  if (options.run) {
    // Without run options, the run panel's own (the embedded default).
    QTimer::singleShot(0, &window, [&] {
      QString error = QObject::tr("the run panel's inputs cannot run: %1").arg(window.run_panel().error_text());
      const auto values = options.bench ? options.bench : window.run_panel().form().checked_values();
      if (!values || !window.run(*values, &error)) {
        std::cerr << "stepscope: error: " << error.toStdString() << '\n';
        finish(false);
      }
    });
  }
  // --open-file: one after the other (a profile imports on the worker thread), each beside the
  // others: every experiment's tab shows its file; a file that cannot be read is named and the
  // rest still open.
  size_t next_file = 0;
  bool all_opened = true;
  const auto open_next = [&] {
    if (next_file < options.open_files.size()) {
      window.open_file(QString::fromStdString(options.open_files[next_file++]));
    } else {
      finish(all_opened);
    }
  };
  QObject::connect(&window, &gui::MainWindow::file_opened, &window, [&](const QString&, bool ok, const QString& error) {
    if (!ok) std::cerr << "stepscope: " << error.toStdString() << '\n';
    all_opened = all_opened && ok;
    open_next();
  });
  if (!options.open_run.empty() || !options.open_files.empty()) {
    QTimer::singleShot(0, &window, [&] {
      if (options.open_files.empty()) {
        QString error;
        const bool opened = window.open_run(options.open_run_id, &error);
        if (!opened) std::cerr << "stepscope: " << error.toStdString() << '\n';
        return finish(opened);
      }
      open_next();
    });
  }
  const int code = QApplication::exec();
  return options.quit ? status : code;
}
