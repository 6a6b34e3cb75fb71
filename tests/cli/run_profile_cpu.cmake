# A profiled tiny run on the CPU writes the profile files beside the CSV.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(
  COMMAND ${CLI} bench --model tiny --context 32 --batch 2 --mode train --warmup 1 --steps 2
          --profile kernels,memory --csv ${WORKDIR}/run.csv
  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench exited ${rc}: ${err}")
endif()
set(stem ${WORKDIR}/run.tiny-ctx32-b2-fp32-train)
foreach(suffix kernels.csv categories.csv gpu_steps.csv cpu_ranges.csv trace.json memory_timeline.csv
               memory_peaks.csv largest_allocations.csv)
  if(NOT EXISTS ${stem}.${suffix})
    message(FATAL_ERROR "missing ${stem}.${suffix}; stderr: ${err}")
  endif()
endforeach()
file(STRINGS ${stem}.cpu_ranges.csv ranges)
# 2 measured steps of a 2-layer model: once a step, once a layer, and 2 norms a layer + the final one.
foreach(expected "step,2" "forward,2" "backward,2" "optimizer step,2" "attention scores,4" "softmax,4"
                 "final matmul,4" "feed-forward,4" "norm,10")
  if(NOT "${ranges}" MATCHES ";${expected},")
    message(FATAL_ERROR "expected '${expected}' instances: ${ranges}")
  endif()
endforeach()
if(NOT err MATCHES "CPU range timings only")
  message(FATAL_ERROR "the run does not say why there are no kernels: ${err}")
endif()
file(READ ${stem}.trace.json trace)
string(JSON events LENGTH "${trace}" traceEvents)
if(events LESS 20)
  message(FATAL_ERROR "trace has only ${events} events")
endif()
# The tiny model has 1,411,392 parameters: after the optimizer step, parameters, gradients and
# AdamW state hold 4, 4 and 8 bytes each.
file(STRINGS ${stem}.memory_peaks.csv peaks)
if(NOT "${peaks}" MATCHES ";after optimizer step,[0-9]+,[0-9.e+-]+,5645568,5645568,11291136,")
  message(FATAL_ERROR "unexpected bytes after the optimizer step: ${peaks}")
endif()
