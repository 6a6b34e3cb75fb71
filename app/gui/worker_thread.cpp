#include "gui/worker_thread.h"

#include <QMetaObject>

#include <utility>

namespace stepscope::gui {

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
