// Inputs several experiments share, declared once: the device, the seed, a precision, step
// counts. Each returns a field to put in an experiment's schema.
#pragma once

#include <string>

#include "core/comm_backend.h"
#include "core/device.h"
#include "schema/input_field.h"
#include "schema/input_values.h"

namespace stepscope {

// cpu, cuda or cuda:N (`help` says more where the experiment needs it).
schema::InputField device_input(const std::string& help = "cpu, cuda or cuda:N");
schema::InputField seed_input(const std::string& help);
// fp32, bf16, fp16, a sweep axis when `list`; or the subset `choices`, a precision outside
// them refused with `refusal` ("the DDP experiments run fp32 or bf16 (autocast), not fp16").
schema::InputField precision_input(const std::string& key, const std::string& label, const std::string& help,
                                   const std::string& default_text, bool list,
                                   std::vector<std::string> choices = {"fp32", "bf16", "fp16"},
                                   const std::string& refusal = {});
// Steps or passes: warm-up from 0, measured from 1, at most a million (an int, never wrapped).
schema::InputField warmup_input(const std::string& key, const std::string& label, const std::string& help,
                                const std::string& default_text);
schema::InputField measured_input(const std::string& key, const std::string& label, const std::string& help,
                                  const std::string& default_text);
// A model preset's name (a list when `list`).
schema::InputField model_input(const std::string& help, const std::string& default_text, bool list);

// on|off: whether the fused engine replays its step as CUDA graphs (bench, ddp).
schema::InputField cuda_graphs_input();

inline constexpr int64_t kMaxSteps = 1000000;

// What a job of ranks shares (allreduce, ddp): local workers (a sweep axis), the backend
// (by default the device's: gloo on cpu, nccl on cuda), cpu or cuda (each rank its
// LOCAL_RANK's GPU) and the rendezvous timeout.
schema::InputField nproc_input();
schema::InputField backend_input();
schema::InputField rank_device_input();
schema::InputField timeout_input();
// The backend the values ask for: --backend, else the device's.
CommBackend backend_of(const std::string& backend_text, const Device& device);
// A job of ranks started on this machine (the app's tabs): every --nproc value is a number of
// local workers, 1 to distributed::kMaxLocalWorkers. Throws ConfigError (field "nproc").
void check_local_ranks(const schema::InputValues& values);

}  // namespace stepscope
