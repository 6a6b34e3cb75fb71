# The real application, end to end: under Xvfb when it is installed (offscreen otherwise) it
# runs a tiny CPU sweep with both profilers, exports every table and chart, saves a
# screenshot and quits; the exported numbers are checked against the model's own sizes.
# A second start reopens the run from the history and must export the same tables.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
set(history ${WORKDIR}/history.sqlite)
find_program(XVFB_RUN xvfb-run)
set(ENV{XDG_CONFIG_HOME} ${WORKDIR}/config)  # a fresh window layout, not the user's
set(ENV{XDG_DATA_HOME} ${WORKDIR}/data)
function(run_app)
  if(XVFB_RUN)
    set(command ${XVFB_RUN} -a -s "-screen 0 1600x1000x24" ${APP} ${ARGN})
    set(ENV{QT_QPA_PLATFORM} xcb)
  else()
    set(command ${APP} ${ARGN})
    set(ENV{QT_QPA_PLATFORM} offscreen)
  endif()
  execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "stepscope ${ARGN} exited ${rc}\nstdout: ${out}\nstderr: ${err}")
  endif()
  set(err "${err}" PARENT_SCOPE)
endfunction()
run_app(--history ${history} --model tiny --context 32 --batch 2 --mode forward,train --warmup 1 --steps 2
        --profile kernels,memory --run --export ${WORKDIR}/export --screenshot ${WORKDIR}/window.png --quit)

foreach(name benchmark.csv memory_peaks.csv largest_allocations.csv memory_timeline.png)
  if(NOT EXISTS ${WORKDIR}/export/${name})
    message(FATAL_ERROR "the export lacks ${name}: ${err}")
  endif()
endforeach()
# The export says where it wrote and what; a tab with nothing measured (the Kernels tab of a CPU
# run: no GPU kernels) is skipped and named, never written as header-only CSVs.
if(NOT err MATCHES "stepscope: Wrote [0-9]+ files into ${WORKDIR}/export: benchmark.csv")
  message(FATAL_ERROR "the export did not say what it wrote: ${err}")
endif()
# The Kernels tab of a CPU run shows CPU time per range: its table and phase chart are
# written; the GPU kernel tables, with no rows, are not written as header-only CSVs.
foreach(name cpu_ranges.csv cpu_range_phases.png)
  if(NOT EXISTS ${WORKDIR}/export/${name})
    message(FATAL_ERROR "the export lacks ${name} of the CPU Kernels tab: ${err}")
  endif()
endforeach()
foreach(name kernels.csv kernel_categories.csv gpu_steps.csv kernel_categories.png)
  if(EXISTS ${WORKDIR}/export/${name})
    message(FATAL_ERROR "the export wrote ${name}, of GPU kernels, for a CPU run")
  endif()
endforeach()
foreach(name attention.csv attention_time.png communication_busbw.png)
  if(EXISTS ${WORKDIR}/export/${name})
    message(FATAL_ERROR "the export wrote ${name} for an experiment that did not run")
  endif()
endforeach()

# One row per configuration, both measured.
file(STRINGS ${WORKDIR}/export/benchmark.csv rows)
list(LENGTH rows count)
# The bench schema's columns: model, d_model, d_ff, layers, heads, vocab, context, batch, precision,
# mode, attention, device, device_name, timer, warmup, steps, status, ...
set(shape "tiny,[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+,32,2,fp32")
set(run "naive,eager,cpu,[^,]*,steady-clock,1,2,ok,")
if(NOT count EQUAL 3 OR NOT "${rows}" MATCHES ";${shape},forward,${run}" OR NOT "${rows}" MATCHES ";${shape},train,${run}")
  message(FATAL_ERROR "unexpected benchmark rows: ${rows}")
endif()

# The tiny model has 1,411,392 parameters: after the optimizer step of the train
# configuration, parameters, gradients and AdamW state hold 4, 4 and 8 bytes each.
file(STRINGS ${WORKDIR}/export/memory_peaks.csv peaks)
if(NOT "${peaks}" MATCHES ";after optimizer step,[0-9]+,[0-9.e+-]+,5645568,5645568,11291136,")
  message(FATAL_ERROR "unexpected bytes after the optimizer step: ${peaks}")
endif()

# PNG files: the signature, and more than an empty image's worth of bytes.
foreach(png ${WORKDIR}/window.png ${WORKDIR}/export/memory_timeline.png)
  file(READ ${png} signature LIMIT 8 HEX)
  file(SIZE ${png} bytes)
  if(NOT signature STREQUAL "89504e470d0a1a0a" OR bytes LESS 10000)
    message(FATAL_ERROR "${png} is not a real PNG (${bytes} bytes, signature ${signature})")
  endif()
endforeach()

# Reopened from the history: the same tables, number for number.
run_app(--history ${history} --open-run latest --export ${WORKDIR}/reopened --quit)
foreach(name benchmark.csv kernels.csv memory_peaks.csv largest_allocations.csv sweep.csv)
  if(NOT EXISTS ${WORKDIR}/export/${name})
    continue()  # nothing measured (kernels on a CPU)
  endif()
  file(READ ${WORKDIR}/export/${name} first)
  file(READ ${WORKDIR}/reopened/${name} again)
  if(NOT first STREQUAL again)
    message(FATAL_ERROR "${name} differs after reopening the run:\n${first}\n---\n${again}")
  endif()
endforeach()
