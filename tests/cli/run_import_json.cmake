# stepscope-cli import F --json RECORD on the committed fixtures (PyTorch 2.11 on an H100): the
# run record of the trace holds one imported entry with the trace's device (its deviceProperties:
# "NVIDIA H100 80GB HBM3"), its two ProfilerStep#N as steps and its kernel profile; the snapshot's
# one entry per device with memory_viz's peak (71245840 bytes, as
# tests/reference/memory_snapshot_summary.py replays it) and the timeline. Both compare, with
# each other and with the trace read again on the way; --json that names the input is refused.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})

function(run status out_var)
  execute_process(COMMAND ${CLI} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${status}")
    message(FATAL_ERROR "${ARGN} exited ${rc}, expected ${status}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  set(${out_var} "${out}${err}" PARENT_SCOPE)
endfunction()

run(0 out import ${TRACE} --json ${WORKDIR}/trace.json --csv ${WORKDIR}/trace.csv)
if(NOT out MATCHES "wrote the run record ${WORKDIR}/trace.json" OR NOT EXISTS ${WORKDIR}/trace.kernels.csv)
  message(FATAL_ERROR "no record or CSV said written:\n${out}")
endif()
file(READ ${WORKDIR}/trace.json record)
string(JSON format GET "${record}" format)
string(JSON experiment GET "${record}" inputs experiment)
string(JSON kind GET "${record}" inputs values kind)
string(JSON entries LENGTH "${record}" entries)
string(JSON from GET "${record}" entries 0 imported_from)
string(JSON model GET "${record}" entries 0 row model)
string(JSON context TYPE "${record}" entries 0 row context)
string(JSON device_name GET "${record}" entries 0 row device_name)
string(JSON steps LENGTH "${record}" entries 0 steps_ns)
string(JSON measured GET "${record}" entries 0 kernel_profile measured_steps)
if(NOT format STREQUAL "stepscope-run" OR NOT experiment STREQUAL "import" OR NOT kind STREQUAL "torch.profiler trace"
   OR NOT entries EQUAL 1 OR NOT from STREQUAL "${TRACE}" OR NOT model STREQUAL "import: trace_cuda.json.gz (cuda:0)"
   OR NOT context STREQUAL "NULL" OR NOT device_name STREQUAL "NVIDIA H100 80GB HBM3" OR NOT steps EQUAL 2
   OR NOT measured EQUAL 2)
  message(FATAL_ERROR "trace.json: ${format} ${experiment} '${kind}', ${entries} entries from ${from}, model '${model}', "
                      "context ${context}, device '${device_name}', ${steps} steps, ${measured} profiled")
endif()

run(0 out import ${SNAPSHOT} --json ${WORKDIR}/snapshot.json --quiet)
file(READ ${WORKDIR}/snapshot.json record)
string(JSON entries LENGTH "${record}" entries)
string(JSON peak GET "${record}" entries 0 row peak_memory_bytes)
string(JSON device GET "${record}" entries 0 row device)
string(JSON timeline TYPE "${record}" entries 0 timeline)
string(JSON kind GET "${record}" inputs values kind)
if(NOT entries EQUAL 1 OR NOT peak EQUAL 71245840 OR NOT device STREQUAL "cuda:0" OR NOT timeline STREQUAL "OBJECT"
   OR NOT kind STREQUAL "memory snapshot")
  message(FATAL_ERROR "snapshot.json: ${entries} entries, peak ${peak} on ${device}, timeline ${timeline}, '${kind}'")
endif()

# The record against the trace it came from, read again: the same configuration, the same figures.
run(0 out compare ${WORKDIR}/trace.json ${TRACE} --fail-if-slower 0%)
if(NOT out MATCHES "Same settings: rows paired by configuration" OR NOT out MATCHES "PASS")
  message(FATAL_ERROR "a trace and its own record did not pair as the same:\n${out}")
endif()
if(NOT out MATCHES "\\(n=2\\)")
  message(FATAL_ERROR "the step's n (two profiled steps) is not shown:\n${out}")
endif()
# Two imports of different files pair by their one differing setting, the file.
run(0 out compare ${WORKDIR}/trace.json ${WORKDIR}/snapshot.json)
if(NOT out MATCHES "Model import: trace_cuda.json.gz \\(cuda:0\\)")
  message(FATAL_ERROR "the two imports were not told apart by their files:\n${out}")
endif()

run(2 out import ${TRACE} --json ${TRACE})
if(NOT out MATCHES "--json and --file name the same file")
  message(FATAL_ERROR "--json over the trace was not refused:\n${out}")
endif()
