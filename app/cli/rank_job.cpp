#include "cli/rank_job.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "compat/torch_compat.h"
#include "distributed/job_rendezvous.h"
#include "distributed/rank_supervisor.h"

namespace stepscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

// Ends the process from a supervisor thread: buffers out, then by the signal the rank received
// (so a launcher or torchrun names it) or with the status.
[[noreturn]] void end_process(int status, int signal) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  if (signal != 0) {
    ::signal(signal, SIG_DFL);
    kill(getpid(), signal);
    std::this_thread::sleep_for(std::chrono::seconds(1));  // delivered to some thread by now
    _exit(128 + signal);
  }
  _exit(status);
}

std::function<void(const std::string&)> say_on(std::ostream& err, const std::string& command) {
  return [&err, command](const std::string& line) { err << "stepscope-cli " << command << ": " << line << '\n' << std::flush; };
}

distributed::SupervisorOptions supervisor_options(const RankJobSpec& spec, const std::string& endpoint, std::ostream& out,
                                           std::ostream& err) {
  distributed::SupervisorOptions o;
  o.rank = spec.env.rank;
  o.world_size = spec.env.world_size;
  o.endpoint = endpoint;
  // The agreement gives up at the timeout and says why; this deadline is for what blocks
  // (a port held by something else, a peer that connected and stopped answering).
  o.rendezvous_timeout = spec.timeout + std::chrono::seconds(2);
  if (spec.worker_rows) {
    o.heartbeat_every = std::chrono::seconds(1);
    o.heartbeat = [&out] { out << "stepscope-rank-alive\n" << std::flush; };
  }
  o.received_signal = [] { return interrupt_signal(); };
  o.say = say_on(err, spec.command);
  o.end_process = end_process;
  return o;
}

std::string endpoint_of(const distributed::TorchrunEnv& env) { return env.master_addr + ":" + std::to_string(env.master_port); }

// After the job ended before its start: rank 0 serves the store until the others read why.
int leave_ended_job(distributed::JobStore& store, const distributed::TorchrunEnv& env, const distributed::JobAbort& abort,
                    Clock::time_point deadline) {
  if (env.rank == 0) {
    distributed::wait_for_acknowledgements(store, env.world_size, deadline);
  } else {
    distributed::acknowledge_abort(store);
  }
  return abort.status;
}

}  // namespace

int run_rank_job(const RankJobSpec& spec, const RankBody& body, std::ostream& out, std::ostream& err) {
  const auto started = Clock::now();
  const std::string endpoint = endpoint_of(spec.env);
  const auto say = say_on(err, spec.command);
  std::unique_ptr<distributed::JobRendezvous> rendezvous;  // outlives the supervisor, which uses it
  auto options = supervisor_options(spec, endpoint, out, err);
  options.connect_store = [&rendezvous] { return rendezvous->connect_client(); };
  distributed::RankSupervisor supervisor(options);
  const std::string me = "rank " + std::to_string(spec.env.rank);
  supervisor.set_activity("connecting to the job's store");
  try {
    rendezvous = std::make_unique<distributed::JobRendezvous>(spec.env, spec.timeout);
  } catch (const std::exception& e) {
    supervisor.stop();
    say(compat::error_message(e));
    return kExitFailure;
  }
  distributed::JobRendezvous* job = rendezvous.get();
  // The supervisor's own client, for its thread; rank 0's connects to its own server.
  supervisor.attach_store();
  // Something other than the job's store can hold the port: it accepts, and never answers.
  supervisor.set_activity("no answer from the store there; a port held by another program never answers");
  try {
    job->store().get_if_set("stepscope/go");
  } catch (const std::exception& e) {
    supervisor.stop();
    say(me + ": the store at " + endpoint + " failed: " + compat::error_message(e));
    return kExitFailure;
  }
  supervisor.set_activity("waiting for the other ranks' settings");
  distributed::AgreementSpec agreement;
  agreement.rank = spec.env.rank;
  agreement.world_size = spec.env.world_size;
  agreement.endpoint = endpoint;
  agreement.settings = spec.settings;
  agreement.settings.entries.insert(agreement.settings.entries.begin(),
                                    {"stepscope-cli", std::string(STEPSCOPE_VERSION) + ", LibTorch " + compat::libtorch_version()});
  agreement.timeout = spec.timeout;
  if (!spec.quiet && !spec.worker_rows) agreement.say = [&](const std::string& line) { say(me + ": " + line); };
  try {
    distributed::agree_on_job(job->store(), agreement);
  } catch (const distributed::JobEnded& ended) {
    supervisor.stop();
    say(me + ": " + ended.abort().message);
    return leave_ended_job(job->store(), spec.env, ended.abort(), started + spec.timeout);
  }
  supervisor.watch_job();
  supervisor.set_activity("connecting the process group");
  int status = kExitFailure;
  try {
    if (spec.cuda_device >= 0) compat::set_cuda_device(spec.cuda_device);
    auto comm = job->join(spec.backend);
    supervisor.rendezvous_over();
    status = body(*comm, supervisor.output_lock());
  } catch (const std::exception& e) {
    const std::string message = compat::error_message(e);
    // The supervisor may be ending this rank already for what broke the collective.
    if (!supervisor.claim_end()) supervisor.stop();
    // A peer that left says why before it goes: that, not the broken collective, is the cause.
    std::optional<distributed::JobAbort> posted;
    try {
      posted = distributed::posted_abort(job->store());
    } catch (const std::exception&) {
    }
    if (posted && posted->origin_rank != spec.env.rank) {
      supervisor.stop();
      say(me + " stops: " + posted->message);
      return leave_ended_job(job->store(), spec.env, *posted, Clock::now() + std::chrono::seconds(2));
    }
    say(me + ": error: " + message);
    supervisor.post_failure(message);
    return kExitFailure;
  }
  supervisor.stop();
  return status;
}

int report_failure_to_job(const std::string& command, const distributed::TorchrunEnv& env, std::chrono::milliseconds timeout,
                          int status, const std::string& message, std::ostream& err) {
  const auto started = Clock::now();
  const auto say = say_on(err, command);
  say("error: " + message);
  RankJobSpec spec;
  spec.command = command;
  spec.env = env;
  spec.timeout = timeout;
  distributed::RankSupervisor supervisor(supervisor_options(spec, endpoint_of(env), std::cout, err));
  supervisor.set_activity("telling the other ranks why this one cannot run");
  try {
    distributed::JobRendezvous job(env, timeout);
    const distributed::JobAbort posted = distributed::post_abort(
        job.store(), {status, env.rank, "rank " + std::to_string(env.rank) + " cannot run: " + message});
    leave_ended_job(job.store(), env, posted, started + timeout);
  } catch (const std::exception& e) {
    say("rank " + std::to_string(env.rank) + " could not tell the other ranks: " + compat::error_message(e));
  }
  supervisor.stop();
  return status;
}

}  // namespace stepscope::cli
