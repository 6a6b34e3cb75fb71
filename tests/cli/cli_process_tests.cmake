# Runs the built binaries as a user would and checks exit status and messages.
# Each error test expects exit status 2 (bad usage) and a message naming the problem.
function(stepscope_cli_error_test name expected_regex)
  add_test(NAME cli_error.${name} COMMAND stepscope-cli ${ARGN})
  set_tests_properties(cli_error.${name} PROPERTIES LABELS "cli;e2e" WILL_FAIL FALSE
    PASS_REGULAR_EXPRESSION "${expected_regex}")
endfunction()

stepscope_cli_error_test(no_command "usage: stepscope-cli <command>")
stepscope_cli_error_test(unknown_command "unknown command 'frobnicate'" frobnicate)
stepscope_cli_error_test(unknown_flag "unknown option '--frob' for 'bench'" bench --frob 3)
stepscope_cli_error_test(missing_value "option --context needs a value" bench --model tiny --context)
stepscope_cli_error_test(bad_integer "--context: 'abc' is not an integer" bench --context abc)
stepscope_cli_error_test(zero_batch "--batch: 0 is too small" bench --batch 0)
stepscope_cli_error_test(unknown_model "unknown model 'huge'" bench --model small,huge)
stepscope_cli_error_test(bad_precision "unknown precision 'fp8'" bench --precision fp8)
stepscope_cli_error_test(bad_mode "unknown mode 'inference'" bench --mode inference)
stepscope_cli_error_test(bad_device "unknown device 'tpu'" bench --model tiny --device tpu)
stepscope_cli_error_test(heads_not_dividing "not divisible by the number of heads" bench --d-model 100 --layers 2 --heads 3)
stepscope_cli_error_test(model_and_custom "cannot be combined" bench --model tiny --d-model 64)
stepscope_cli_error_test(empty_list_item "empty item in list" bench --context 128,,256)
stepscope_cli_error_test(negative_warmup "--warmup: -1 is too small" bench --warmup -1)
stepscope_cli_error_test(check_needs_checkpoint "--checkpoint is required" check --tokens t.npy --heads 4)
stepscope_cli_error_test(check_missing_file "no-such.pt" check --checkpoint no-such.pt --tokens t.npy --heads 4)
stepscope_cli_error_test(check_step_needs_targets "--adamw-step-out needs --targets"
  check --checkpoint a.pt --tokens t.npy --heads 4 --adamw-step-out b.pt)
stepscope_cli_error_test(unwritable_csv "--csv: cannot write" bench --model tiny --csv /nonexistent-dir/out.csv)

# A real run end to end: a tiny sweep writes CSV and JSON with one row per configuration.
add_test(NAME cli_e2e.tiny_sweep
  COMMAND ${CMAKE_COMMAND}
    -DCLI=$<TARGET_FILE:stepscope-cli> -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/e2e_sweep
    -P ${CMAKE_CURRENT_LIST_DIR}/run_tiny_sweep.cmake)
set_tests_properties(cli_e2e.tiny_sweep PROPERTIES LABELS "cli;e2e")

# --profile kernels,memory on the CPU: range timings, a valid trace, the memory tables.
add_test(NAME cli_e2e.profile_kernels_cpu
  COMMAND ${CMAKE_COMMAND}
    -DCLI=$<TARGET_FILE:stepscope-cli> -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/e2e_profile
    -P ${CMAKE_CURRENT_LIST_DIR}/run_profile_cpu.cmake)
set_tests_properties(cli_e2e.profile_kernels_cpu PROPERTIES LABELS "cli;e2e")
stepscope_cli_error_test(profile_unknown "unknown profiler 'cycles'" bench --model tiny --profile cycles)
# --profile ops on the CPU: the operator tables, record and trace, read back by Python.
add_test(NAME cli_e2e.profile_ops_cpu COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_profile_ops_cpu.sh
  $<TARGET_FILE:stepscope-cli> ${CMAKE_CURRENT_BINARY_DIR}/e2e_profile_ops)
set_tests_properties(cli_e2e.profile_ops_cpu PROPERTIES LABELS "cli;e2e" PASS_REGULAR_EXPRESSION "PASS" TIMEOUT 300)

# The precision lab.
stepscope_cli_error_test(precision_needs_experiment "precision needs an experiment: accumulate or autocast" precision)
stepscope_cli_error_test(precision_unknown_experiment "unknown precision experiment 'sum'" precision sum)
stepscope_cli_error_test(precision_fp32_autocast "autocast lowers to bf16 or fp16" precision autocast --precision fp32)
stepscope_cli_error_test(precision_unknown_model "--model: unknown model 'huge'" precision autocast --model huge)
stepscope_cli_error_test(precision_bad_device "unknown device 'tpu'" precision autocast --device tpu)
stepscope_cli_error_test(precision_accumulate_takes_no_model "unknown option '--model' for 'precision accumulate'"
  precision accumulate --model toy)
add_test(NAME cli_e2e.precision_lab
  COMMAND ${CMAKE_COMMAND}
    -DCLI=$<TARGET_FILE:stepscope-cli> -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/e2e_precision
    -P ${CMAKE_CURRENT_LIST_DIR}/run_precision_lab.cmake)
set_tests_properties(cli_e2e.precision_lab PROPERTIES LABELS "cli;e2e")

# Numbers past their type's range are refused, not wrapped (4294967297 would be 1 as an int).
stepscope_cli_error_test(steps_past_int "--steps: at most 1000000" bench --model tiny --steps 4294967297)
stepscope_cli_error_test(integer_past_int64 "--batch: '99999999999999999999' is not an integer" bench --batch 99999999999999999999)
stepscope_cli_error_test(huge_width "d_model 1000000000000 is too large" bench --d-model 1000000000000 --layers 2 --heads 4)

# Output paths, checked before the first step.
stepscope_cli_error_test(csv_and_json_same_file "--csv and --json name the same file"
  bench --model tiny --csv same.out --json ./same.out)
stepscope_cli_error_test(csv_names_a_folder "--csv: results/ names a folder, not a file" bench --model tiny --csv results/)
stepscope_cli_error_test(check_outputs_same_file "--out and --adamw-step-out name the same file"
  check --checkpoint a.pt --tokens t.npy --targets t.npy --heads 4 --out x.pt --adamw-step-out x.pt)
add_test(NAME cli_e2e.output_paths
  COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:stepscope-cli> -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/e2e_outputs
    -P ${CMAKE_CURRENT_LIST_DIR}/run_output_paths.cmake)
set_tests_properties(cli_e2e.output_paths PROPERTIES LABELS "cli;e2e")
stepscope_cli_error_test(models_takes_no_arguments "models: error: takes no arguments" models extra)
stepscope_cli_error_test(version_takes_no_arguments "version: error: takes no arguments" version extra)
stepscope_cli_error_test(tiny_rope_theta "rope theta must be a finite number above 1" check --checkpoint a.pt --tokens t.npy --heads 4 --rope-theta 1e-300)
stepscope_cli_error_test(checkpoint_is_a_folder "is a folder, not a checkpoint file" check --checkpoint . --tokens t.npy --heads 4)
# Far beyond the machine's memory: an OOM row at once (exit 0: OOM is a result), not a process
# the kernel kills after filling the RAM.
add_test(NAME cli_e2e.hopeless_configuration_is_oom COMMAND stepscope-cli bench --model 2.7B --context 2048
  --batch 64 --warmup 0 --steps 1 --quiet)
set_tests_properties(cli_e2e.hopeless_configuration_is_oom PROPERTIES LABELS "cli;e2e" TIMEOUT 60
  PASS_REGULAR_EXPRESSION "2.7B,2560,10240,32,32,10000,2048,64,fp32,train,naive,eager,cpu,.*,steady-clock,0,0,OOM,")
add_test(NAME cli_e2e.sigterm_keeps_the_rows
  COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:stepscope-cli> -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/e2e_interrupt
    -P ${CMAKE_CURRENT_LIST_DIR}/run_interrupts.cmake)
set_tests_properties(cli_e2e.sigterm_keeps_the_rows PROPERTIES LABELS "cli;e2e" TIMEOUT 120)
# Attention: the sweep through the real binary, each implementation checked against naive fp32;
# the model-level comparison (the seeds' torch_compile (b)) in one bench sweep.
add_test(NAME cli_e2e.attention_sweep COMMAND stepscope-cli attention --impl naive,flash --batch 2 --d 16 --seq 40
  --causal --warmup 1 --steps 2 --quiet)
set_tests_properties(cli_e2e.attention_sweep PROPERTIES LABELS "cli;e2e" TIMEOUT 120
  PASS_REGULAR_EXPRESSION "naive,2,1,16,40,fp32,yes,ok,.*flash,2,1,16,40,fp32,yes,ok,")
add_test(NAME cli_e2e.bench_naive_against_flash_attention COMMAND stepscope-cli bench --model tiny --context 32
  --batch 2 --attention naive,flash --mode train --warmup 1 --steps 2 --quiet)
set_tests_properties(cli_e2e.bench_naive_against_flash_attention PROPERTIES LABELS "cli;e2e" TIMEOUT 120
  PASS_REGULAR_EXPRESSION "fp32,train,naive,eager,cpu,.*fp32,train,flash,eager,cpu,[^\n]*,ok,")
# Rounds: the implementations of a shape take turns, each round named in the progress lines.
add_test(NAME cli_e2e.attention_rounds_interleave COMMAND stepscope-cli attention --impl naive,flash --batch 2
  --d 16 --seq 40 --warmup 1 --steps 4 --rounds 2)
set_tests_properties(cli_e2e.attention_rounds_interleave PROPERTIES LABELS "cli;e2e" TIMEOUT 120
  PASS_REGULAR_EXPRESSION "naive b 2 h 1 d 16 seq 40 fp32 round 1/2.*flash b 2 h 1 d 16 seq 40 fp32 round 1/2.*flash b 2 h 1 d 16 seq 40 fp32 round 2/2.*naive b 2 h 1 d 16 seq 40 fp32 round 2/2")
stepscope_cli_error_test(attention_rounds_beyond_steps
  "--rounds: 5 rounds need at least 5 measured passes; there are 4" attention --steps 4 --rounds 5)
stepscope_cli_error_test(attention_zero_rounds "--rounds: 0 is too small" attention --rounds 0)
stepscope_cli_error_test(attention_steps_beyond_int "--steps: at most 1000000" attention --steps 4294967297)
stepscope_cli_error_test(attention_unknown_impl "--impl: unknown attention implementation 'flash3'" attention --impl flash3)
stepscope_cli_error_test(attention_check_needs_inputs "--q is required" attention check --out x)
stepscope_cli_error_test(bench_unknown_attention "--attention: unknown attention implementation 'fast'" bench --attention fast)

# The collective benchmark on Gloo: 2, 4 and 6 local ranks, a torchrun-style start, a killed rank.
add_test(NAME cli_e2e.collective_ranks
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_collective_ranks.sh $<TARGET_FILE:stepscope-cli>
    ${CMAKE_CURRENT_BINARY_DIR}/e2e_collectives)
set_tests_properties(cli_e2e.collective_ranks PROPERTIES LABELS "cli;e2e" PASS_REGULAR_EXPRESSION "PASS" TIMEOUT 300)
stepscope_cli_error_test(collectives_bad_size "--sizes: '1XB' is not a size" collectives --sizes 1XB)
# allreduce: the command's former name still runs it.
stepscope_cli_error_test(allreduce_is_collectives "--sizes: '1XB' is not a size" allreduce --sizes 1XB)
stepscope_cli_error_test(collectives_bad_op "unknown collective 'alltoall'" collectives --op alltoall)
stepscope_cli_error_test(collectives_nccl_on_cpu "nccl runs on GPUs" collectives --backend nccl)
stepscope_cli_error_test(collectives_bad_nproc "--nproc: 0 is too small" collectives --nproc 0)

# The DDP experiments on Gloo: 2 local ranks, all four variants match one process (--check).
add_test(NAME cli_e2e.ddp_ranks
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_ddp_ranks.sh $<TARGET_FILE:stepscope-cli>
    ${CMAKE_CURRENT_BINARY_DIR}/e2e_ddp)
set_tests_properties(cli_e2e.ddp_ranks PROPERTIES LABELS "cli;e2e" PASS_REGULAR_EXPRESSION "PASS" TIMEOUT 120)
stepscope_cli_error_test(ddp_bad_variant "--variant: unknown DDP variant 'fancy'" ddp --variant fancy)
stepscope_cli_error_test(ddp_fp16 "--precision: the DDP experiments run fp32 or bf16" ddp --model tiny --precision fp16)
stepscope_cli_error_test(ddp_bad_bucket "--bucket-mb" ddp --bucket-mb 0)
stepscope_cli_error_test(ddp_bad_optimizer "--optimizer: unknown optimizer 'zero3'" ddp --optimizer zero3)
stepscope_cli_error_test(ddp_bad_engine "--engine: unknown engine 'compiled'" ddp --engine eager,compiled)
stepscope_cli_error_test(ddp_fp16_reduce "--reduce-dtype: gradients are reduced in fp32 or bf16" ddp --reduce-dtype fp16)

# The planner against the seeds' XXL answers.
add_test(NAME cli_e2e.plan COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_plan.sh $<TARGET_FILE:stepscope-cli>
  ${CMAKE_CURRENT_BINARY_DIR}/e2e_plan)
set_tests_properties(cli_e2e.plan PROPERTIES LABELS "cli;e2e" PASS_REGULAR_EXPRESSION "PASS" TIMEOUT 60)
stepscope_cli_error_test(plan_bad_fsdp "--fsdp: 0 is too small" plan --fsdp 0)
stepscope_cli_error_test(plan_unknown_model "--model: unknown model 'xxxl'" plan --model xxxl)
stepscope_cli_error_test(plan_bad_memory "--device-memory" plan --device-memory lots)

# One rank of a job in trouble, with real processes on Gloo: a signal to one of 2 or 4 workers;
# ranks that disagree, miss each other or cannot start; a measurement longer than --timeout;
# configurations beyond memory; two runs writing one CSV.
foreach(script rank_signals rank_rendezvous long_measurement memory_prechecks concurrent_csv)
  add_test(NAME cli_e2e.${script}
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_${script}.sh $<TARGET_FILE:stepscope-cli>
      ${CMAKE_CURRENT_BINARY_DIR}/e2e_${script})
  set_tests_properties(cli_e2e.${script} PROPERTIES LABELS "cli;e2e" PASS_REGULAR_EXPRESSION "PASS" TIMEOUT 300)
endforeach()
stepscope_cli_error_test(world_size_past_the_limit "WORLD_SIZE is 100000, out of range \\(1 to 4096\\)" collectives)
set_tests_properties(cli_error.world_size_past_the_limit PROPERTIES ENVIRONMENT
  "WORLD_SIZE=100000;RANK=0;LOCAL_RANK=0;LOCAL_WORLD_SIZE=1;MASTER_ADDR=127.0.0.1;MASTER_PORT=29999")

# Exit status and message both checked (stepscope_cli_error_test checks
# only the message).
function(stepscope_cli_exit_test name status expected_regex)
  string(JOIN "|" args ${ARGN})
  set(workdir ${CMAKE_CURRENT_BINARY_DIR}/exit_tests)
  file(MAKE_DIRECTORY ${workdir})
  add_test(NAME cli_error.${name} COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:stepscope-cli> -DSTATUS=${status}
    "-DEXPECTED=${expected_regex}" "-DARGS=${args}" -P ${CMAKE_CURRENT_LIST_DIR}/expect_exit.cmake)
  set_tests_properties(cli_error.${name} PROPERTIES LABELS "cli;e2e" WORKING_DIRECTORY ${workdir})
endfunction()
# A device this build or machine lacks is refused before a tensor moves there (with real inputs,
# attention check ended in an uncaught c10::Error).
set(stepscope_no_device "--device: device 'cuda(:[0-9]+)?' (needs a CUDA build|not found)")
set(stepscope_qkv ${PROJECT_SOURCE_DIR}/tests/data/tiny_model/logits.npy)
foreach(device cuda:999 cuda cuda:1)
  if(STEPSCOPE_WITH_CUDA AND NOT device STREQUAL "cuda:999")
    continue()  # these exist on a GPU machine
  endif()
  string(REPLACE ":" "_" suffix ${device})
  stepscope_cli_exit_test(attention_check_device_${suffix} 2 "${stepscope_no_device}"
    attention check --q ${stepscope_qkv} --k ${stepscope_qkv} --v ${stepscope_qkv} --out d --device ${device})
  stepscope_cli_exit_test(check_device_${suffix} 2 "${stepscope_no_device}"
    check --checkpoint a.pt --tokens t.npy --heads 4 --device ${device})
  stepscope_cli_exit_test(bench_device_${suffix} 2 "${stepscope_no_device}"
    bench --model tiny --steps 1 --warmup 0 --device ${device})
  stepscope_cli_exit_test(attention_device_${suffix} 2 "${stepscope_no_device}"
    attention --d 16 --seq 16 --steps 1 --warmup 0 --device ${device})
  stepscope_cli_exit_test(precision_autocast_device_${suffix} 2 "${stepscope_no_device}"
    precision autocast --device ${device})
endforeach()
# Outputs never name inputs, in any spelling, in any command that reads files.
add_test(NAME cli_e2e.outputs_never_replace_inputs
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_outputs_not_inputs.sh $<TARGET_FILE:stepscope-cli>
    ${PROJECT_SOURCE_DIR}/tests/data ${CMAKE_CURRENT_BINARY_DIR}/e2e_outputs_not_inputs)
set_tests_properties(cli_e2e.outputs_never_replace_inputs PROPERTIES LABELS "cli;e2e" PASS_REGULAR_EXPRESSION "PASS"
  TIMEOUT 300)
stepscope_cli_exit_test(check_out_is_the_tokens 2 "--out and --tokens name the same file"
  check --checkpoint a.pt --tokens t.npy --heads 4 --out ./t.npy)
set(stepscope_io_data ${PROJECT_SOURCE_DIR}/tests/data/io)
# A checkpoint whose storage class does not match its data.
stepscope_cli_exit_test(check_mislabelled_storage 2 "--checkpoint: .*tensor 'w' .*DoubleStorage.*need 48"
  check --checkpoint ${stepscope_io_data}/double_holds_float.pt --tokens t.npy --heads 4)
# Values a narrower type cannot hold are refused, naming the option and the value.
stepscope_cli_exit_test(attention_check_float64_beyond_float32 2
  "--q: .*f64_beyond_f32_1x2x2.npy holds 1e\\+300, beyond float32's range"
  attention check --q ${stepscope_io_data}/f64_beyond_f32_1x2x2.npy --k ${stepscope_io_data}/f64_beyond_f32_1x2x2.npy
  --v ${stepscope_io_data}/f64_beyond_f32_1x2x2.npy --impl naive --out beyond)
stepscope_cli_exit_test(attention_check_beyond_fp16 2 "--q: .* holds 70000, beyond float16's range .*--precision fp16"
  attention check --q ${stepscope_io_data}/f32_beyond_f16_1x2x2.npy --k ${stepscope_io_data}/f32_beyond_f16_1x2x2.npy
  --v ${stepscope_io_data}/f32_beyond_f16_1x2x2.npy --precision fp16 --impl naive --out beyond)
# plan: no saturated or wrapped number is printed as a result.
stepscope_cli_exit_test(plan_mesh_axes_overflow 2 "--m-x: F / \\(Y M_X\\) = inf" plan --m-x 1e-308 --m-y 1e308)
stepscope_cli_exit_test(plan_global_batch_past_int64 2 "--batch: the global batch in sequences"
  plan --batch 16777216 --dp 1048576 --fsdp 1048576)
add_test(NAME cli_e2e.plan_limits COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_plan_limits.sh $<TARGET_FILE:stepscope-cli>
  ${CMAKE_CURRENT_BINARY_DIR}/e2e_plan_limits)
set_tests_properties(cli_e2e.plan_limits PROPERTIES LABELS "cli;e2e" PASS_REGULAR_EXPRESSION "PASS" TIMEOUT 60)
# Bounded reads: a run file that never ends is refused by the limit, at once.
stepscope_cli_error_test(plan_allreduce_dev_zero
  "--allreduce: /dev/zero holds more than 128 MiB; a run file is read up to 128 MiB" plan --allreduce /dev/zero)
set_tests_properties(cli_error.plan_allreduce_dev_zero PROPERTIES TIMEOUT 20)

# Profiles of the user's own PyTorch code.
add_test(NAME cli_e2e.import_torch_trace
  COMMAND ${CMAKE_COMMAND}
    -DCLI=$<TARGET_FILE:stepscope-cli> -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/e2e_import
    -DTRACE=${PROJECT_SOURCE_DIR}/tests/data/torch_profiles/trace_cuda.json.gz
    -P ${CMAKE_CURRENT_LIST_DIR}/run_import_trace.cmake)
set_tests_properties(cli_e2e.import_torch_trace PROPERTIES LABELS "cli;e2e")
# The CPU-only trace PyTorch 1.13 wrote without Kineto (a bare array of events without categories).
add_test(NAME cli_e2e.import_torch_trace_cpu
  COMMAND ${CMAKE_COMMAND}
    -DCLI=$<TARGET_FILE:stepscope-cli> -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/e2e_import_cpu
    -DTRACE=${PROJECT_SOURCE_DIR}/tests/data/torch_profiles/trace_cpu.json.gz
    -DEXPECTED=${PROJECT_SOURCE_DIR}/tests/data/torch_profiles/trace_cpu.expected.json
    -P ${CMAKE_CURRENT_LIST_DIR}/run_import_trace_cpu.cmake)
set_tests_properties(cli_e2e.import_torch_trace_cpu PROPERTIES LABELS "cli;e2e")
stepscope_cli_error_test(import_needs_file "--file is required" import)
stepscope_cli_error_test(import_not_json "not valid JSON at byte" import ${PROJECT_SOURCE_DIR}/README.md)
stepscope_cli_error_test(import_no_such_file "no-such-trace.json: no such file" import no-such-trace.json)
stepscope_cli_error_test(import_not_a_trace "no \"traceEvents\" array"
  import ${PROJECT_SOURCE_DIR}/tests/data/torch_profiles/fixtures_cuda.json)
add_test(NAME cli_e2e.import_memory_snapshot
  COMMAND ${CMAKE_COMMAND}
    -DCLI=$<TARGET_FILE:stepscope-cli> -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/e2e_import_snapshot
    -DSNAPSHOT=${PROJECT_SOURCE_DIR}/tests/data/torch_profiles/snapshot_cuda.pickle
    -P ${CMAKE_CURRENT_LIST_DIR}/run_import_snapshot.cmake)
set_tests_properties(cli_e2e.import_memory_snapshot PROPERTIES LABELS "cli;e2e")
# import --json: the run record of a trace and of a snapshot, compared with each other and the trace.
add_test(NAME cli_e2e.import_json_record
  COMMAND ${CMAKE_COMMAND}
    -DCLI=$<TARGET_FILE:stepscope-cli> -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/e2e_import_json
    -DTRACE=${PROJECT_SOURCE_DIR}/tests/data/torch_profiles/trace_cuda.json.gz
    -DSNAPSHOT=${PROJECT_SOURCE_DIR}/tests/data/torch_profiles/snapshot_cuda.pickle
    -P ${CMAKE_CURRENT_LIST_DIR}/run_import_json.cmake)
set_tests_properties(cli_e2e.import_json_record PROPERTIES LABELS "cli;e2e")
stepscope_cli_exit_test(compare_history_id_malformed 2 "'history:x': a History run is history:ID" compare history:x b.json)
stepscope_cli_exit_test(compare_history_missing_database 2 "no-such.sqlite: no such History database"
  compare history:1 history:2 --history no-such.sqlite)
# compare: two tiny bench runs gated as in CI (exit 0 on a rerun, 1 on a slower B, 2 on bad input).
add_test(NAME cli_e2e.compare_gate
  COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:stepscope-cli> -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/e2e_compare
    -P ${CMAKE_CURRENT_LIST_DIR}/run_compare_gate.cmake)
set_tests_properties(cli_e2e.compare_gate PROPERTIES LABELS "cli;e2e" TIMEOUT 300)
stepscope_cli_exit_test(compare_needs_two_records 2 "compare: error: needs two run records, A and B; got 1" compare a.json)
stepscope_cli_exit_test(compare_output_is_an_input 2 "--csv and B name the same file"
  compare a.json b.json --csv ./b.json)
