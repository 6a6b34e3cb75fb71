// The app's one way to run engine work off the GUI thread: the run panel's benchmark and every
// experiment tab's run. The work runs on a thread of its own. What it reports as it goes
// (progress, the live kernel summary, the table so far) is kept, the latest of each, and handed
// to the GUI thread by a timer at most ten times a second; what it posts (a finished
// configuration) and its end reach the GUI thread at once, in order. The GUI thread never waits
// on it; destroying it cancels the work and waits for it.
#pragma once

#include <QObject>
#include <QTimer>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "core/progress.h"
#include "profiling/kernel_profile.h"
#include "schema/table.h"

namespace stepscope::gui {

// What the work reports through (from any of its threads): the latest of each kind is kept.
class WorkerReports final : public ProgressSink {
 public:
  void on_progress(const Progress& progress) override;
  void on_kernel_profile(const profiling::KernelProfile& profile) override;
  void set_table(const schema::Table& table);

  std::optional<Progress> take_progress();
  std::shared_ptr<const profiling::KernelProfile> take_profile();
  std::optional<schema::Table> take_table();

 private:
  std::mutex mutex_;
  std::optional<Progress> progress_;
  std::shared_ptr<const profiling::KernelProfile> profile_;
  std::optional<schema::Table> table_;
};

class WorkerThread : public QObject {
  Q_OBJECT

 public:
  using Work = std::function<void(WorkerReports& reports, const CancelFlag& cancel)>;

  explicit WorkerThread(QObject* parent = nullptr);
  ~WorkerThread() override;  // cancels the work in progress and waits for it

  bool is_running() const { return thread_.joinable(); }
  // Runs `work` on the worker thread, then `done` on the GUI thread after the last reports.
  // Ignored while a work runs.
  void start(Work work, std::function<void()> done);
  // The work stops at its next check (between steps); what it measured is kept.
  void cancel() { cancel_.cancel(); }
  bool is_cancelled() const { return cancel_.is_cancelled(); }
  // From the work: runs `task` on the GUI thread, in order with other posts and before `done`.
  void post(std::function<void()> task);

 signals:
  void progress(const stepscope::Progress& progress);
  void kernel_profile(std::shared_ptr<const stepscope::profiling::KernelProfile> profile);
  void table(const stepscope::schema::Table& table);

 private:
  void publish_latest();

  std::thread thread_;
  std::unique_ptr<WorkerReports> reports_;
  CancelFlag cancel_;
  QTimer throttle_;
};

}  // namespace stepscope::gui
