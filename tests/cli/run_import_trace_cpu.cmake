# stepscope-cli import on a CPU-only torch.profiler trace PyTorch 1.13 wrote without Kineto
# (Debian's python3-torch; the committed fixture trace_cpu.json.gz: a bare array of events without
# categories): exit 0, the notes say it is CPU-only and how its events were told apart, and the
# CPU ranges and operators are those tests/reference/torch_trace_summary.py reads from the same
# file (trace_cpu.expected.json: per annotation the instances and time; the operator groups,
# calls and measured time of ProfilerStep#1 and #2).
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(
  COMMAND ${CLI} import ${TRACE} --csv ${WORKDIR}/cpu.csv --json ${WORKDIR}/cpu.json
  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "import exited ${rc}: ${err}")
endif()
foreach(note "no GPU activity in the trace \\(a CPU-only profile\\)"
             "events without a category \\(PyTorch's profiler without Kineto" "records no input shapes"
             "kernels of .*trace_cpu.json.gz, 2 measured step\\(s\\)")
  if(NOT out MATCHES "${note}")
    message(FATAL_ERROR "stdout does not say '${note}':\n${out}")
  endif()
endforeach()

file(READ ${EXPECTED} expected)
# CPU time per range: every (range, parent) of the reference, its instances and whole microseconds.
file(STRINGS ${WORKDIR}/cpu.cpu_ranges.csv ranges)
string(JSON count LENGTH "${expected}" cpu_ranges)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON range GET "${expected}" cpu_ranges ${i} range)
  string(JSON parent GET "${expected}" cpu_ranges ${i} parent)
  string(JSON instances GET "${expected}" cpu_ranges ${i} instances)
  string(JSON total_us GET "${expected}" cpu_ranges ${i} total_us)
  string(REGEX REPLACE "\\.0$" "" total_us "${total_us}")
  math(EXPR total_ns "${total_us} * 1000")
  set(found FALSE)
  foreach(row ${ranges})  # Range,Instances,Total Time (ns),Avg (ns),Parent
    if(row MATCHES "^([^,]*),([0-9]+),([0-9]+),[^,]*,(.*)$" AND CMAKE_MATCH_1 STREQUAL "${range}"
       AND CMAKE_MATCH_4 STREQUAL "${parent}" AND CMAKE_MATCH_2 EQUAL instances AND CMAKE_MATCH_3 EQUAL total_ns)
      set(found TRUE)
    endif()
  endforeach()
  if(NOT found)
    message(FATAL_ERROR "cpu_ranges.csv has no '${range}' in '${parent}' x${instances}, ${total_ns} ns:\n${ranges}")
  endif()
endforeach()

# The run record: one CPU entry with the reference's operator groups, calls and measured time.
file(READ ${WORKDIR}/cpu.json record)
string(JSON device GET "${record}" entries 0 row device)
string(JSON message GET "${record}" entries 0 row message)
string(JSON groups LENGTH "${record}" entries 0 operator_profile operators)
string(JSON calls GET "${record}" entries 0 operator_profile operator_calls)
string(JSON measured_ns GET "${record}" entries 0 operator_profile measured_cpu_ns)
string(JSON gpu GET "${record}" entries 0 operator_profile gpu_activity_recorded)
string(JSON want_groups LENGTH "${expected}" operators)
string(JSON want_calls GET "${expected}" operator_calls)
string(JSON want_us GET "${expected}" measured_cpu_us)
string(REGEX REPLACE "\\.0$" "" want_us "${want_us}")
math(EXPR want_ns "${want_us} * 1000")
if(NOT device STREQUAL "cpu" OR NOT message MATCHES "CPU-only" OR NOT groups EQUAL want_groups
   OR NOT calls EQUAL want_calls OR NOT measured_ns EQUAL want_ns OR NOT gpu STREQUAL "OFF")
  message(FATAL_ERROR "cpu.json: device ${device}, ${groups} operator groups (reference ${want_groups}), ${calls} "
                      "calls (${want_calls}), ${measured_ns} ns measured (${want_ns}), GPU ${gpu}; message: ${message}")
endif()
