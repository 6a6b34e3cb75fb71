#include "experiments/run_registry.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace stepscope {

namespace {

constexpr std::string_view kRunPrefix = "run-";

// An open file descriptor, closed once.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// flock, retried when a signal interrupts it; false on any other failure.
bool lock(int fd, int operation) {
  int rc;
  do {
    rc = ::flock(fd, operation);
  } while (rc != 0 && errno == EINTR);
  return rc == 0;
}

std::string read_all(int fd) {
  std::string text;
  char buffer[512];
  ssize_t n;
  while ((n = ::pread(fd, buffer, sizeof buffer, static_cast<off_t>(text.size()))) > 0) text.append(buffer, n);
  return text;
}

bool write_all(int fd, const std::string& text) {
  if (::ftruncate(fd, 0) != 0) return false;
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// The registry's sequence file, locked for the object's lifetime: registering and scanning
// happen under it, so a run's file is never seen before its owner holds its lock.
class SequenceLock {
 public:
  explicit SequenceLock(const std::string& folder)
      : fd_(::open((folder + "/sequence").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    locked_ = fd_.get() >= 0 && lock(fd_.get(), LOCK_EX);
  }
  ~SequenceLock() {
    if (locked_) lock(fd_.get(), LOCK_UN);
  }
  bool locked() const { return locked_; }
  int64_t value() const { return std::strtoll(read_all(fd_.get()).c_str(), nullptr, 10); }
  bool set(int64_t value) { return write_all(fd_.get(), std::to_string(value) + "\n"); }

 private:
  Fd fd_;
  bool locked_ = false;
};

struct FoundRun {
  int64_t sequence = 0;
  OtherRun run;
};

// The runs whose files are locked now, but `own`; files left by processes that died are removed.
std::vector<FoundRun> active_runs(const std::string& folder, const std::string& own) {
  std::vector<FoundRun> found;
  DIR* dir = ::opendir(folder.c_str());
  if (dir == nullptr) return found;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.rfind(kRunPrefix, 0) != 0) continue;
    const std::string path = folder + "/" + name;
    if (path == own) continue;
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) continue;
    if (lock(fd.get(), LOCK_SH | LOCK_NB)) {
      ::unlink(path.c_str());  // its owner ended without removing it
      continue;
    }
    if (errno != EWOULDBLOCK) continue;
    const std::string text = read_all(fd.get());
    const size_t newline = text.find('\n');
    FoundRun run;
    run.sequence = std::strtoll(name.c_str() + kRunPrefix.size(), nullptr, 10);
    run.run.pid = std::strtoll(text.c_str(), nullptr, 10);
    run.run.label = newline == std::string::npos ? std::string() : text.substr(newline + 1);
    found.push_back(std::move(run));
  }
  ::closedir(dir);
  return found;
}

// A rank other than 0 of a job: rank 0, or the launcher, speaks for the job.
bool is_other_rank() {
  const char* rank = std::getenv("RANK");
  return rank != nullptr && *rank != '\0' && std::string_view(rank) != "0";
}

}  // namespace

std::string describe(const RunOverlap& overlap) {
  if (!overlap.any()) return {};
  const size_t count = overlap.seen.size() + static_cast<size_t>(overlap.unseen);
  std::string text = count == 1 ? "measured while another Stepscope run ran" : "measured while other Stepscope runs ran";
  for (size_t i = 0; i < overlap.seen.size(); ++i) {
    text += (i == 0 ? ": " : "; ") + overlap.seen[i].label + " (pid " + std::to_string(overlap.seen[i].pid) + ")";
  }
  if (overlap.unseen > 0) {
    text += (overlap.seen.empty() ? ": " : "; ") + std::to_string(overlap.unseen) +
            (overlap.seen.empty() ? "" : " more") + " began and ended during it";
  }
  return text;
}

std::string default_run_registry_folder() {
  if (const char* set = std::getenv("STEPSCOPE_RUN_REGISTRY"); set != nullptr && *set != '\0') return set;
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime != nullptr && *runtime != '\0') {
    return std::string(runtime) + "/stepscope-runs";
  }
  return "/tmp/stepscope-runs-" + std::to_string(::getuid());
}

RegisteredRun::RegisteredRun(const std::string& label, const std::string& folder) : folder_(folder) {
  if (is_other_rank()) return;
  if (::mkdir(folder_.c_str(), 0700) != 0 && errno != EEXIST) return;
  SequenceLock sequence(folder_);
  if (!sequence.locked()) return;
  std::vector<FoundRun> active = active_runs(folder_, {});
  const int64_t parent = ::getppid();
  for (const FoundRun& found : active) {
    if (found.run.pid == parent) return;  // a worker of that run
  }
  sequence_ = sequence.value() + 1;
  if (!sequence.set(sequence_)) return;
  path_ = folder_ + "/" + std::string(kRunPrefix) + std::to_string(sequence_) + "-" + std::to_string(::getpid());
  Fd fd(::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (fd.get() < 0) return;
  if (!lock(fd.get(), LOCK_EX | LOCK_NB) || !write_all(fd.get(), std::to_string(::getpid()) + "\n" + label)) {
    ::unlink(path_.c_str());
    return;
  }
  for (FoundRun& found : active) seen_at_start_.push_back(std::move(found.run));
  fd_ = fd.release();
}

RegisteredRun::~RegisteredRun() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // before the lock goes: a scanner never removes a live run's file
  ::close(fd_);
}

RunOverlap RegisteredRun::overlap() const {
  RunOverlap overlap;
  if (fd_ < 0) return overlap;
  overlap.seen = seen_at_start_;
  SequenceLock sequence(folder_);
  if (!sequence.locked()) return overlap;
  int64_t seen_begun_since = 0;
  for (const FoundRun& found : active_runs(folder_, path_)) {
    if (found.sequence > sequence_) ++seen_begun_since;
    bool known = false;
    for (const OtherRun& run : overlap.seen) known = known || (run.pid == found.run.pid && run.label == found.run.label);
    if (!known) overlap.seen.push_back(found.run);
  }
  const int64_t begun_since = sequence.value() - sequence_;
  overlap.unseen = begun_since > seen_begun_since ? begun_since - seen_begun_since : 0;
  return overlap;
}

}  // namespace stepscope
