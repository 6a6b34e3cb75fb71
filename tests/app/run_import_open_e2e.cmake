# PyTorch's own files opened in the application (--open-file), told apart by what they hold: the
# committed trace exports the Kernels tab's tables (its kernels as
# tests/reference/torch_trace_summary.py counts them: 820 in the profiled steps, the elementwise
# kernel first), the snapshot the Memory tab's (memory_viz's peak, 71245840 bytes). Both land in
# the History, which `stepscope-cli compare history:ID` reads; a file that is no profile is named
# on stderr, exit 1, and leaves no run behind.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
set(ENV{QT_QPA_PLATFORM} offscreen)
set(ENV{XDG_CONFIG_HOME} ${WORKDIR}/config)
set(history ${WORKDIR}/history.sqlite)
set(trace ${SOURCE_DIR}/tests/data/torch_profiles/trace_cuda.json.gz)
set(snapshot ${SOURCE_DIR}/tests/data/torch_profiles/snapshot_cuda.pickle)

function(app status)
  execute_process(COMMAND ${APP} --history ${history} ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 600)
  if(NOT rc STREQUAL "${status}")
    message(FATAL_ERROR "stepscope ${ARGN} exited ${rc}, expected ${status}: ${err}")
  endif()
  set(app_err "${err}" PARENT_SCOPE)
endfunction()

function(cli status out_var)
  execute_process(COMMAND ${CLI} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${status}")
    message(FATAL_ERROR "stepscope-cli ${ARGN} exited ${rc}, expected ${status}\n${out}\n${err}")
  endif()
  set(${out_var} "${out}${err}" PARENT_SCOPE)
endfunction()

app(0 --open-file ${trace} --export ${WORKDIR}/trace --quit)
file(STRINGS ${WORKDIR}/trace/kernels.csv kernels)
list(LENGTH kernels lines)
if(lines LESS 20 OR NOT EXISTS ${WORKDIR}/trace/window_kernels.png)
  message(FATAL_ERROR "the imported trace's kernels were not shown (${lines} lines): ${kernels}")
endif()
file(STRINGS ${WORKDIR}/trace/gpu_steps.csv steps)
if(NOT "${steps}" MATCHES ";2,[^;]*,411," OR NOT "${steps}" MATCHES ";3,[^;]*,411,")
  message(FATAL_ERROR "expected ProfilerStep#2 and #3 with 411 kernels and copies each: ${steps}")
endif()
file(STRINGS ${WORKDIR}/trace/benchmark.csv bench)
if(NOT "${bench}" MATCHES "import: trace_cuda.json.gz \\(cuda:0\\)")
  message(FATAL_ERROR "the benchmark table does not name the import: ${bench}")
endif()

app(0 --open-file ${snapshot} --export ${WORKDIR}/snapshot --quit)
file(STRINGS ${WORKDIR}/snapshot/memory_peaks.csv peaks)
if(NOT "${peaks}" MATCHES "71245840")
  message(FATAL_ERROR "the snapshot's peak is not memory_viz's 71245840 bytes: ${peaks}")
endif()

# The History keeps both: compare reads them by id, and the first against the trace itself.
cli(0 out compare history:1 history:2 --history ${history})
if(NOT out MATCHES "A: history:1" OR NOT out MATCHES "import: trace_cuda.json.gz")
  message(FATAL_ERROR "compare history:1 history:2:\n${out}")
endif()
cli(0 out compare history:1 ${trace} --history ${history} --fail-if-slower 0%)
if(NOT out MATCHES "Same settings" OR NOT out MATCHES "\\(n=2\\)")
  message(FATAL_ERROR "the History's import and its trace are not the same run:\n${out}")
endif()
cli(2 out compare history:1 history:3 --history ${history})
if(NOT out MATCHES "B: .*history.sqlite: the History has no run 3")
  message(FATAL_ERROR "a missing run was not named:\n${out}")
endif()

# No profile: named, exit 1, nothing kept.
app(1 --open-file ${SOURCE_DIR}/README.md --quit)
if(NOT app_err MATCHES "README.md: not a Stepscope run record, a torch.profiler trace")
  message(FATAL_ERROR "README.md was not refused by name: ${app_err}")
endif()
cli(2 out compare history:1 history:3 --history ${history})
