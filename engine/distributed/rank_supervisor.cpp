#include "distributed/rank_supervisor.h"

#include <signal.h>
#include <string.h>

namespace stepscope::distributed {

namespace {

using Clock = std::chrono::steady_clock;

std::string seconds(std::chrono::milliseconds d) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", static_cast<double>(d.count()) / 1000.0);
  return text;
}

}  // namespace

std::string signal_name(int signal) {
  const char* abbreviation = sigabbrev_np(signal);
  const char* description = sigdescr_np(signal);
  std::string name = abbreviation ? "SIG" + std::string(abbreviation) : "signal " + std::to_string(signal);
  if (description) name += " (" + std::string(description) + ")";
  return name;
}

RankSupervisor::RankSupervisor(SupervisorOptions options)
    : options_(std::move(options)), rendezvous_deadline_(Clock::now() + options_.rendezvous_timeout) {
  watch_thread_ = std::thread([this] { watch_loop(); });
  store_thread_ = std::thread([this] { store_loop(); });
}

RankSupervisor::~RankSupervisor() { stop(); }

void RankSupervisor::set_activity(const std::string& activity) {
  std::lock_guard<std::mutex> lock(mutex_);
  activity_ = activity;
}

void RankSupervisor::attach_store() {
  std::lock_guard<std::mutex> lock(mutex_);
  attached_ = true;
  wake_.notify_all();
}

void RankSupervisor::watch_job() {
  std::lock_guard<std::mutex> lock(mutex_);
  watching_ = true;
}

void RankSupervisor::rendezvous_over() { rendezvous_over_ = true; }

bool RankSupervisor::claim_end() {
  bool expected = false;
  return ending_.compare_exchange_strong(expected, true);
}

void RankSupervisor::post_failure(const std::string& message) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (attached_ && !stopping_ && store_state_ != StoreState::gone) {
      to_post_ = JobAbort{kExitPeerEnded, options_.rank,
                          "rank " + std::to_string(options_.rank) + " failed: " + message};
      wake_.notify_all();
      // The store thread posts it (and on rank 0 lingers); bounded, in case the store is gone.
      wake_.wait_for(lock, options_.linger + std::chrono::seconds(2), [&] { return posted_ || stopping_; });
    }
  }
  stop();
}

void RankSupervisor::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    wake_.notify_all();
  }
  if (watch_thread_.joinable() && watch_thread_.get_id() != std::this_thread::get_id()) watch_thread_.join();
  if (store_thread_.joinable() && store_thread_.get_id() != std::this_thread::get_id()) store_thread_.join();
}

void RankSupervisor::finish(int status, int signal, const std::string& message) {
  // Never mid-write: wait for a write in progress (bounded: a write never blocks for long).
  const bool locked = output_lock_.try_lock_for(std::chrono::seconds(2));
  if (options_.say && !message.empty()) options_.say(message);
  if (options_.end_process) options_.end_process(status, signal);
  if (locked) output_lock_.unlock();
}

void RankSupervisor::end_through_store(int status, int signal, const std::string& message) {
  // Rank 0 serves the store: it waits for the others to be done with it; they say they are.
  if (options_.rank == 0) {
    wait_for_acknowledgements(*store_, options_.world_size, Clock::now() + options_.linger);
  } else {
    acknowledge_abort(*store_);
  }
  finish(status, signal, message);
}

void RankSupervisor::watch_loop() {
  auto next_heartbeat = Clock::now() + options_.heartbeat_every;
  std::optional<Clock::time_point> signalled_at;
  const std::string me = "rank " + std::to_string(options_.rank);
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (wake_.wait_for(lock, options_.tick, [&] { return stopping_; })) return;
    }
    if (ending_) return;
    const auto now = Clock::now();
    const int signal = options_.received_signal ? options_.received_signal() : 0;
    if (signal != 0 && !signalled_at) {
      signalled_at = now;
      bool attached;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        attached = attached_;
      }
      if (!attached || store_state_ == StoreState::gone) {
        if (claim_end()) finish(kExitPeerEnded, signal, me + " received " + signal_name(signal) + "; stopping now");
        return;
      }
      signal_to_post_ = signal;  // the store thread tells the others first
    }
    // The store thread had its chance to tell the others; end regardless.
    if (signalled_at && now - *signalled_at > options_.linger + std::chrono::seconds(1)) {
      if (claim_end()) {
        finish(kExitPeerEnded, signal,
               me + " received " + signal_name(signal) + "; stopping now (the other ranks could not be told)");
      }
      return;
    }
    if (!rendezvous_over_ && now >= rendezvous_deadline_) {
      std::string activity;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        activity = activity_;
      }
      if (claim_end()) {
        finish(1, 0, me + ": the rendezvous at " + options_.endpoint + " did not complete within " +
                         seconds(options_.rendezvous_timeout) + " (" + activity +
                         "); is MASTER_ADDR:MASTER_PORT the store of rank 0 of this job, and did every rank start?");
      }
      return;
    }
    if (options_.heartbeat && options_.heartbeat_every.count() > 0 && now >= next_heartbeat) {
      next_heartbeat = now + options_.heartbeat_every;
      if (output_lock_.try_lock_for(std::chrono::milliseconds(100))) {
        options_.heartbeat();
        output_lock_.unlock();
      }
    }
  }
}

void RankSupervisor::store_loop() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [&] { return attached_ || stopping_; });
    if (stopping_) return;
  }
  try {
    store_ = options_.connect_store ? options_.connect_store() : nullptr;
  } catch (const std::exception&) {
    store_.reset();  // the watch thread still ends the rank on a signal, without telling others
  }
  store_state_ = store_ ? StoreState::alive : StoreState::gone;
  if (!store_) return;
  const std::string me = "rank " + std::to_string(options_.rank);
  while (true) {
    std::optional<JobAbort> failure;
    bool watching;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait_for(lock, options_.store_poll, [&] { return stopping_ || to_post_.has_value(); });
      failure = to_post_;
      watching = watching_;
      if (stopping_ && !failure) return;
    }
    try {
      if (failure) {  // the main thread claimed the end and waits for this
        post_abort(*store_, *failure);
        if (options_.rank == 0) {
          wait_for_acknowledgements(*store_, options_.world_size, Clock::now() + options_.linger);
        } else {
          acknowledge_abort(*store_);
        }
        std::lock_guard<std::mutex> lock(mutex_);
        posted_ = true;
        to_post_.reset();
        wake_.notify_all();
        return;
      }
      if (ending_) return;
      if (const int signal = signal_to_post_.load(); signal != 0) {
        if (!claim_end()) return;
        const std::string what = me + " received " + signal_name(signal);
        post_abort(*store_, {kExitPeerEnded, options_.rank, what});
        return end_through_store(kExitPeerEnded, signal, what + "; stopping now (finished rows are in the files)");
      }
      if (!watching) continue;
      const auto abort = posted_abort(*store_);
      if (!abort || abort->origin_rank == options_.rank) continue;
      if (!claim_end()) return;
      return end_through_store(abort->status, 0, me + " stops: " + abort->message);
    } catch (const std::exception&) {
      // The store is gone (rank 0 ended, normally or not): collectives report a lost peer.
      store_state_ = StoreState::gone;
      std::lock_guard<std::mutex> lock(mutex_);
      posted_ = true;  // nothing more will be posted
      wake_.notify_all();
      return;
    }
  }
}

}  // namespace stepscope::distributed
