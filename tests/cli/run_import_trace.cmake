# stepscope-cli import on a torch.profiler trace PyTorch 2.11 wrote on an H100 (the committed
# fixture): the four tables beside --csv, the steps and the busiest kernels as
# tests/reference/torch_trace_summary.py reads them (trace_cuda.expected.json: 820 kernels in
# ProfilerStep#2 and #3, 411 activities each, the largest total an elementwise_kernel's).
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(
  COMMAND ${CLI} import ${TRACE} --csv ${WORKDIR}/mine.csv
  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "import exited ${rc}: ${err}")
endif()
foreach(suffix kernels.csv categories.csv gpu_steps.csv cpu_ranges.csv)
  if(NOT EXISTS ${WORKDIR}/mine.${suffix})
    message(FATAL_ERROR "missing mine.${suffix}; output: ${out} ${err}")
  endif()
endforeach()
file(STRINGS ${WORKDIR}/mine.gpu_steps.csv steps)
list(LENGTH steps lines)
if(NOT lines EQUAL 3 OR NOT "${steps}" MATCHES ";2,[0-9]+,[0-9]+,[0-9]+,[0-9.]+,411," OR
   NOT "${steps}" MATCHES ";3,[0-9]+,[0-9]+,[0-9]+,[0-9.]+,411,")
  message(FATAL_ERROR "expected steps 2 and 3 with 411 activities each: ${steps}")
endif()
if(NOT out MATCHES "kernels of .*trace_cuda.json.gz, 2 measured step\\(s\\)" OR NOT out MATCHES "elementwise_kernel")
  message(FATAL_ERROR "no summary on stdout: ${out}")
endif()
file(STRINGS ${WORKDIR}/mine.cpu_ranges.csv ranges)
foreach(expected "forward,2" "backward,2" "optimizer,2" "train_step,2")
  if(NOT "${ranges}" MATCHES ";${expected},")
    message(FATAL_ERROR "expected the annotation '${expected}' instances: ${ranges}")
  endif()
endforeach()
