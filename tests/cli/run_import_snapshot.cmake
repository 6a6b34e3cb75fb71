# stepscope-cli import on a CUDA memory snapshot PyTorch 2.11 wrote (the committed fixture): the
# memory tables of cuda:0 beside --csv, whose overall peak is the one
# tests/reference/memory_snapshot_summary.py replays from the same file as memory_viz does
# (snapshot_cuda.expected.json: 71245840 bytes), and the summary on stdout.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(
  COMMAND ${CLI} import ${SNAPSHOT} --csv ${WORKDIR}/mem.csv
  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "import exited ${rc}: ${err}")
endif()
foreach(suffix memory_timeline.csv memory_peaks.csv largest_allocations.csv memory_categories.csv)
  if(NOT EXISTS ${WORKDIR}/mem.cuda0.${suffix})
    message(FATAL_ERROR "missing mem.cuda0.${suffix}; output: ${out} ${err}")
  endif()
endforeach()
file(STRINGS ${WORKDIR}/mem.cuda0.memory_peaks.csv peaks)
if(NOT "${peaks}" MATCHES ";overall,[^;]*,71245840,[0-9]+$" AND NOT "${peaks}" MATCHES ";overall,[^;]*,71245840,[0-9]+;")
  message(FATAL_ERROR "expected the overall peak of 71245840 bytes: ${peaks}")
endif()
if(NOT out MATCHES "1074 allocations and 1074 frees recorded" OR NOT out MATCHES "89 blocks alive before recording")
  message(FATAL_ERROR "no summary on stdout: ${out}")
endif()
