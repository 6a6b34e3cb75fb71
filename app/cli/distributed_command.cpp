#include "cli/distributed_command.h"

#include "cli/command_output.h"
#include "cli/commands.h"
#include "cli/option_reader.h"
#include "compat/torch_compat.h"
#include "dist/worker_launcher.h"
#include "model/model_config.h"

namespace stepscope::cli {

int run_distributed_command(const DistributedCommand& c, const std::vector<std::string>& args, std::ostream& out,
                            std::ostream& err) {
  const std::string prefix = "stepscope-cli " + c.name + ": error: ";
  std::optional<dist::TorchrunEnv> env;
  try {
    for (const auto& a : args) {
      if (a == "--help" || a == "-h") {
        out << c.usage;
        return kExitOk;
      }
    }
    c.parse(args);
    env = dist::TorchrunEnv::from_environment();
    for (int64_t n : c.nprocs()) {
      if (n < 1 || n > dist::kMaxLocalWorkers) {
        throw CliError("--nproc: " + std::to_string(n) + " is not between 1 and " +
                       std::to_string(dist::kMaxLocalWorkers));
      }
      try {
        c.check(env ? env->world_size : static_cast<int>(n));
        if (c.on_gpus && c.on_gpus() && compat::built_with_cuda()) {
          dist::check_one_gpu_per_rank(env ? env->local_world_size : static_cast<int>(n), compat::cuda_device_count());
        }
      } catch (const ConfigError& e) {
        throw CliError((e.field().empty() ? "" : "--" + e.field() + ": ") + e.what());
      }
    }
    const auto files = c.outputs();
    if (!files.empty()) check_outputs(files);
  } catch (const CliError& e) {
    err << prefix << e.what() << '\n';
    return kExitUsage;
  } catch (const ConfigError& e) {
    err << prefix << e.what() << '\n';
    return kExitUsage;
  }
  try {
    return env ? c.run_as_rank(*env) : c.run_local();
  } catch (const std::exception& e) {
    err << prefix << compat::error_message(e) << '\n';
    return kExitFailure;
  }
}

int status_of_rows(int status, const schema::Table& table,
                   const std::function<bool(const schema::Table&, const std::vector<schema::Value>&)>& failed) {
  if (status == kExitInterrupted) return status;
  for (const auto& row : table.rows) {
    if (failed(table, row)) return kExitFailure;
  }
  return status;
}

}  // namespace stepscope::cli
