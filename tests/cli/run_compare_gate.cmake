# compare end to end through the real binary: two tiny bench runs on the CPU, compared as a CI job
# would. A rerun of the same configuration passes a generous gate (exit 0); a larger context
# against a smaller one, paired across that one setting, fails a tight one (exit 1); A's record
# with its step time tripled by hand fails whatever the machine's noise (exit 1); an unreadable
# B is exit 2. The figures in the CSV are checked against the two records' own numbers.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})

function(bench name context batch)
  execute_process(
    COMMAND ${CLI} bench --model tiny --context ${context} --batch ${batch} --mode train --warmup 1 --steps 5
            --csv ${WORKDIR}/${name}.csv --json ${WORKDIR}/${name}.json --quiet
    RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "bench ${name} exited ${rc}: ${err}")
  endif()
endfunction()

# Runs compare with ARGN, expects exit status `status`; its stdout in `out_var`.
function(compare status out_var)
  execute_process(COMMAND ${CLI} compare ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${status}")
    message(FATAL_ERROR "compare ${ARGN} exited ${rc}, expected ${status}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  set(${out_var} "${out}${err}" PARENT_SCOPE)
endfunction()

bench(a 32 2)
bench(a_again 32 2)
bench(long 256 4)

# A rerun of the same configuration: paired as the same, within a generous gate.
compare(0 out ${WORKDIR}/a.json ${WORKDIR}/a_again.json --fail-if-slower 500% --csv ${WORKDIR}/same.csv
        --json ${WORKDIR}/same.json)
if(NOT out MATCHES "Same settings: rows paired by configuration")
  message(FATAL_ERROR "a rerun was not paired as the same configuration:\n${out}")
endif()
if(NOT out MATCHES "\nPASS: [0-9]+ gated figures? within the rule\n$")
  message(FATAL_ERROR "no PASS verdict as the last line:\n${out}")
endif()
if(NOT out MATCHES "rule: B regresses when B - A > P x A and B - A > 2 x sqrt")
  message(FATAL_ERROR "the rule is not stated:\n${out}")
endif()
file(READ ${WORKDIR}/same.json same)
string(JSON regressions GET "${same}" regressions)
string(JSON format GET "${same}" format)
if(NOT format STREQUAL "stepscope-compare" OR NOT regressions EQUAL 0)
  message(FATAL_ERROR "same.json: ${format} with ${regressions} regressions")
endif()

# The step's figures in the CSV are the two records' own: A and B from each record's row.
file(READ ${WORKDIR}/a.json a_json)
file(READ ${WORKDIR}/a_again.json b_json)
string(JSON a_step GET "${a_json}" entries 0 row total_mean_ms)
string(JSON b_step GET "${b_json}" entries 0 row total_mean_ms)
file(STRINGS ${WORKDIR}/same.csv csv)
list(GET csv 0 header)
if(NOT header MATCHES "^table,configuration,measure,a,b,b_minus_a,b_over_a,verdict,")
  message(FATAL_ERROR "unexpected compare CSV header: ${header}")
endif()
set(step_line "")
foreach(line ${csv})
  if(line MATCHES "^bench,\"tiny, Context 32, Batch 2, fp32, train, naive, eager\",Step,")
    set(step_line "${line}")
  endif()
endforeach()
if(NOT step_line MATCHES ",Step,([^,]+),([^,]+),")
  message(FATAL_ERROR "no Step row in the CSV:\n${csv}")
endif()
# EQUAL compares as doubles: CMake's JSON reader writes 17 digits where the CSV writes the shortest.
if(NOT CMAKE_MATCH_1 EQUAL a_step OR NOT CMAKE_MATCH_2 EQUAL b_step)
  message(FATAL_ERROR "CSV step ${CMAKE_MATCH_1}, ${CMAKE_MATCH_2}; the records hold ${a_step}, ${b_step}")
endif()

# Context 256 x batch 4 against 32 x 2: 16 times the tokens. Two single runs pair across the
# change, which is named; the step is far more than 50% slower.
compare(1 out ${WORKDIR}/a.json ${WORKDIR}/long.json --fail-if-slower step=50%)
if(NOT out MATCHES "Changed from A to B: Context 32 → 256, Batch 2 → 4")
  message(FATAL_ERROR "the changed settings are not named:\n${out}")
endif()
if(NOT out MATCHES "Step [^\n]* regressed" OR NOT out MATCHES "\nFAIL: 1 of 1 gated figure regressed\n$")
  message(FATAL_ERROR "the slower configuration did not fail the gate:\n${out}")
endif()

# A's record with its step time tripled: B - A = 2 A, far beyond 10% and the noise (A's spread kept).
# CMake has no floating point: three times the mean of the steps in integer nanoseconds, as ms.
string(JSON steps_len LENGTH "${a_json}" entries 0 steps_ns)
set(total_ns 0)
math(EXPR last "${steps_len} - 1")
foreach(i RANGE ${last})
  string(JSON ns GET "${a_json}" entries 0 steps_ns ${i} total_ns)
  math(EXPR total_ns "${total_ns} + ${ns}")
endforeach()
math(EXPR slow_total_ns "3 * ${total_ns} / ${steps_len}")
math(EXPR slow_ms_int "${slow_total_ns} / 1000000")
math(EXPR slow_ms_frac "${slow_total_ns} % 1000000")
string(LENGTH "${slow_ms_frac}" frac_len)
math(EXPR pad "6 - ${frac_len}")
string(REPEAT "0" ${pad} zeros)
set(slow_ms "${slow_ms_int}.${zeros}${slow_ms_frac}")
string(JSON slow SET "${a_json}" entries 0 row total_mean_ms "${slow_ms}")
file(WRITE ${WORKDIR}/slow.json "${slow}")
compare(1 out ${WORKDIR}/a.json ${WORKDIR}/slow.json --fail-if-slower 10% --json ${WORKDIR}/slow_compare.json)
if(NOT out MATCHES "Same settings" OR NOT out MATCHES "\nFAIL: 1 of [0-9]+ gated figures? regressed\n$")
  message(FATAL_ERROR "a tripled step time did not fail the gate:\n${out}")
endif()
file(READ ${WORKDIR}/slow_compare.json slow_compare)
string(JSON verdict GET "${slow_compare}" verdict)
if(NOT verdict MATCHES "^FAIL: 1 of")
  message(FATAL_ERROR "slow_compare.json's verdict: ${verdict}")
endif()
# The same pair with no gate: compared, exit 0.
compare(0 out ${WORKDIR}/a.json ${WORKDIR}/slow.json)
if(NOT out MATCHES "\nnot gated\n$")
  message(FATAL_ERROR "without a gate, no 'not gated' verdict:\n${out}")
endif()

# Exit 2: B missing, a truncated record, a bad threshold; nothing is written.
compare(2 out ${WORKDIR}/a.json ${WORKDIR}/missing.json --csv ${WORKDIR}/never.csv)
if(NOT out MATCHES "compare: error: B: .*missing.json" OR EXISTS ${WORKDIR}/never.csv)
  message(FATAL_ERROR "a missing B was not refused by name:\n${out}")
endif()
string(SUBSTRING "${a_json}" 0 200 truncated)
file(WRITE ${WORKDIR}/truncated.json "${truncated}")
compare(2 out ${WORKDIR}/truncated.json ${WORKDIR}/a.json)
if(NOT out MATCHES "compare: error: A: .*truncated.json: malformed JSON")
  message(FATAL_ERROR "a truncated A was not refused by name:\n${out}")
endif()
compare(2 out ${WORKDIR}/a.json ${WORKDIR}/a_again.json --fail-if-slower 5)
if(NOT out MATCHES "--fail-if-slower: '5' is not a percentage: end it with %")
  message(FATAL_ERROR "a threshold without % was not refused:\n${out}")
endif()
compare(2 out ${WORKDIR}/a.json ${WORKDIR}/a_again.json --fail-if-slower stpe=5%)
if(NOT out MATCHES "--fail-if-slower: no duration measure 'stpe' in these runs; there are [^\n]*Step \\(total_mean_ms\\)")
  message(FATAL_ERROR "an unknown measure was not refused with the ones there are:\n${out}")
endif()
