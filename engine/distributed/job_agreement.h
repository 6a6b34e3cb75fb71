// Before their first collective, the ranks of one job agree on what they will run: each posts
// its settings (the options that decide its collectives, and its world), rank 0 compares them
// with its own and says go, or ends the job with one message naming the setting and the ranks
// that differ. Ranks launched by hand or by torchrun/srun on several nodes can be started with
// different options; without this, the first mismatched collective aborts inside Gloo or hangs.
// A rank that fails before or during the rendezvous posts why, and every rank ends with it.
// Plain C++ over JobStore; no LibTorch.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "distributed/job_store.h"

namespace stepscope::distributed {

// Option name ("--sizes", "WORLD_SIZE") and its canonical value ("1000000,2000000"), in the
// order a message should list them.
struct JobSettings {
  std::vector<std::pair<std::string, std::string>> entries;

  std::string encode() const;
  static JobSettings decode(const std::string& text);
  // "--sizes (rank 0: 1000000, rank 1: 2000000)" for every setting that differs; empty if none.
  static std::string differences(const JobSettings& a, int rank_a, const JobSettings& b, int rank_b);
};

// Why a job ended early: what every rank prints, and the status the ranks that end because of
// it exit with.
struct JobAbort {
  int status = 1;
  int origin_rank = -1;  // the rank it came from
  std::string message;

  std::string encode() const;
  static std::optional<JobAbort> decode(const std::string& text);
};

// Thrown by agree_on_job when the job must not start; every rank of the job throws it.
class JobEnded : public std::runtime_error {
 public:
  explicit JobEnded(JobAbort abort) : std::runtime_error(abort.message), abort_(std::move(abort)) {}
  const JobAbort& abort() const { return abort_; }

 private:
  JobAbort abort_;
};

struct AgreementSpec {
  int rank = 0;
  int world_size = 1;
  std::string endpoint;  // "HOST:PORT", for messages
  JobSettings settings;  // WORLD_SIZE is added to them
  std::chrono::milliseconds timeout{60'000};
  std::chrono::milliseconds poll{50};
  std::chrono::milliseconds remind_every{10'000};
  std::function<void(const std::string&)> say;  // progress lines; may be empty
};

// Rank 0 waits (until `timeout`) for every rank, checks each as it arrives and posts go; the
// others post their settings and wait for go. Throws JobEnded on every rank when the ranks
// disagree (status 2), a rank posted a failure (its status), two processes claim one rank,
// or ranks are missing at the deadline (status 1, naming them).
void agree_on_job(JobStore& store, const AgreementSpec& spec);

// Posts `abort` as the job's end unless one was posted before; returns the one that stands.
JobAbort post_abort(JobStore& store, const JobAbort& abort);
std::optional<JobAbort> posted_abort(JobStore& store);
// A rank that ends because of a posted abort says it has read it; rank 0, which serves the
// store, waits for that before leaving, so that nobody loses the store before reading why.
void acknowledge_abort(JobStore& store);
// True when the other `world_size - 1` ranks acknowledged before `deadline`.
bool wait_for_acknowledgements(JobStore& store, int world_size, std::chrono::steady_clock::time_point deadline,
                               std::chrono::milliseconds poll = std::chrono::milliseconds(50));

}  // namespace stepscope::distributed
