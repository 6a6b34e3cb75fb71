#include "gui/worker_thread.h"

#include <QMetaObject>

#include <algorithm>
#include <cerrno>

#include <utility>

#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace stepscope::gui {

namespace {

// The run's thread yields to the window's when they compete for a core (a laptop's two, a
// build beside): at equal priority the training thread and LibTorch's threads, which it starts
// and which inherit this, left the window a third of a core, and each configuration's end
// stalled it for 70-100 ms. On an idle core it costs the run nothing: niceness only orders
// threads waiting for the same core.
void run_below_the_window() {
#ifdef __linux__
  const int tid = static_cast<int>(gettid());
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, tid);
  if (errno == 0) setpriority(PRIO_PROCESS, tid, std::min(nice + 5, 19));  // best effort: unchanged on failure
#endif
}

}  // namespace

void WorkerReports::on_progress(const Progress& progress) {
  std::lock_guard<std::mutex> lock(mutex_);
  progress_ = progress;
}

void WorkerReports::on_kernel_profile(const profiling::KernelProfile& profile) {
  auto copy = std::make_shared<const profiling::KernelProfile>(profile);  // outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  profile_ = std::move(copy);
}

void WorkerReports::set_table(const schema::Table& table) {
  std::lock_guard<std::mutex> lock(mutex_);
  table_ = table;
}

std::optional<Progress> WorkerReports::take_progress() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(progress_, std::nullopt);
}

std::shared_ptr<const profiling::KernelProfile> WorkerReports::take_profile() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(profile_, nullptr);
}

std::optional<schema::Table> WorkerReports::take_table() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(table_, std::nullopt);
}

WorkerThread::WorkerThread(QObject* parent) : QObject(parent) {
  throttle_.setInterval(100);  // about ten updates a second
  connect(&throttle_, &QTimer::timeout, this, &WorkerThread::publish_latest);
}

WorkerThread::~WorkerThread() {
  cancel_.cancel();
  if (thread_.joinable()) thread_.join();
}

void WorkerThread::start(Work work, std::function<void()> done) {
  if (is_running()) return;
  cancel_.reset();
  reports_ = std::make_unique<WorkerReports>();
  throttle_.start();
  thread_ = std::thread([this, work = std::move(work), done = std::move(done)] {
    run_below_the_window();
    work(*reports_, cancel_);
    // Queued after every post of the work: the end comes last.
    QMetaObject::invokeMethod(
        this,
        [this, done] {
          if (thread_.joinable()) thread_.join();
          throttle_.stop();
          publish_latest();  // what was left
          done();
        },
        Qt::QueuedConnection);
  });
}

void WorkerThread::post(std::function<void()> task) {
  QMetaObject::invokeMethod(this, std::move(task), Qt::QueuedConnection);
}

void WorkerThread::publish_latest() {
  if (!reports_) return;
  if (const auto p = reports_->take_progress()) emit progress(*p);
  if (auto profile = reports_->take_profile()) emit kernel_profile(std::move(profile));
  if (const auto t = reports_->take_table()) emit table(*t);
}

}  // namespace stepscope::gui
