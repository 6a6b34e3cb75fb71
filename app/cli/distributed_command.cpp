#include "cli/distributed_command.h"

#include <charconv>

#include "cli/command_output.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "compat/torch_compat.h"
#include "core/device.h"
#include "distributed/worker_launcher.h"
#include "core/config_error.h"
#include "core/size_limits.h"

namespace stepscope::cli {

namespace {

// --timeout as given, for telling the other ranks when the options themselves were refused.
std::chrono::seconds timeout_hint(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string value;
    if (args[i] == "--timeout" && i + 1 < args.size()) value = args[i + 1];
    if (args[i].rfind("--timeout=", 0) == 0) value = args[i].substr(10);
    int seconds = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (!value.empty() && ec == std::errc() && end == value.data() + value.size() && seconds > 0) {
      return std::chrono::seconds(seconds);
    }
  }
  return std::chrono::seconds(60);
}

// A configuration's error, named by the option, or by the launcher's variable for a rank of a
// job (its world comes from WORLD_SIZE and LOCAL_WORLD_SIZE, not --nproc).
CliError configuration_error(const ConfigError& e, const std::optional<distributed::TorchrunEnv>& env) {
  if (env && e.field() == "nproc") {
    return CliError("WORLD_SIZE is " + std::to_string(env->world_size) + " and LOCAL_WORLD_SIZE " +
                    std::to_string(env->local_world_size) + " (set by torchrun or the launcher that started this "
                    "process): " + e.what());
  }
  return CliError((e.field().empty() ? "" : "--" + e.field() + ": ") + e.what());
}

void check_configurations(const DistributedCommand& c, const std::optional<distributed::TorchrunEnv>& env) {
  const auto check = [&](int ranks, int local_ranks) {
    try {
      c.check(ranks);
      if (c.on_gpus && c.on_gpus() && compat::built_with_cuda()) {
        distributed::check_one_gpu_per_rank(local_ranks, compat::cuda_device_count());
      }
    } catch (const ConfigError& e) {
      throw configuration_error(e, env);
    }
  };
  if (env) return check(env->world_size, env->local_world_size);
  for (int64_t n : c.nprocs()) {
    if (n < 1 || n > distributed::kMaxLocalWorkers) {
      throw CliError("--nproc: " + std::to_string(n) + " is not between 1 and " + std::to_string(distributed::kMaxLocalWorkers));
    }
    check(static_cast<int>(n), static_cast<int>(n));
  }
}

}  // namespace

int run_distributed_command(const DistributedCommand& c, const std::vector<std::string>& args, std::ostream& out,
                            std::ostream& err) {
  const std::string prefix = "stepscope-cli " + c.name + ": error: ";
  std::optional<distributed::TorchrunEnv> env;
  try {
    for (const auto& a : args) {
      if (a == "--help" || a == "-h") {
        out << c.usage;
        return kExitOk;
      }
    }
    env = distributed::TorchrunEnv::from_environment();
  } catch (const ConfigError& e) {
    err << prefix << e.what() << '\n';
    return kExitUsage;
  }
  try {
    c.parse(args);
    check_configurations(c, env);
    const auto files = c.outputs();
    if (!files.empty()) check_outputs(files);
  } catch (const std::exception& e) {  // CliError, ConfigError
    if (env) return report_failure_to_job(c.name, *env, timeout_hint(args), kExitUsage, e.what(), err);
    err << prefix << e.what() << '\n';
    return kExitUsage;
  }
  try {
    if (!env) return c.run_local();
    const distributed::TorchrunEnv rank = *env;
    return run_rank_job(c.rank_job(rank),
                        [&](distributed::Communicator& comm, std::timed_mutex& lock) { return c.run_as_rank(rank, comm, lock); },
                        out, err);
  } catch (const std::exception& e) {
    err << prefix << compat::error_message(e) << '\n';
    return kExitFailure;
  }
}

RankJobSpec rank_job_of(const std::string& command, const distributed::TorchrunEnv& env, CommBackend backend, int timeout_s,
                        const TableOutputs& outputs, const Device& device) {
  RankJobSpec job;
  job.command = command;
  job.env = env;
  job.backend = backend;
  job.timeout = std::chrono::seconds(timeout_s);
  job.worker_rows = outputs.worker_rows;
  job.quiet = outputs.quiet;
  if (device.is_cuda()) job.cuda_device = env.local_rank;
  return job;
}

int status_of_rows(int status, const schema::Table& table,
                   const std::function<bool(const schema::Table&, const std::vector<schema::Value>&)>& failed) {
  if (status == kExitInterrupted) return status;
  for (const auto& row : table.rows) {
    if (failed(table, row)) return kExitFailure;
  }
  return status;
}

distributed::JobSettings job_settings(const schema::InputValues& canonical) {
  distributed::JobSettings settings;
  for (const auto& field : canonical.schema().fields) {
    if (field.key == "nproc" || field.key == "timeout" || field.kind == schema::InputKind::path) continue;
    const std::string text = field.kind == schema::InputKind::flag ? (canonical.flag(field.key) ? "on" : "off")
                                                                   : canonical.text(field.key);
    settings.entries.emplace_back("--" + field.key, text);
  }
  return settings;
}

}  // namespace stepscope::cli
