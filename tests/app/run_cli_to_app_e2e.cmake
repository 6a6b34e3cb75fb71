# One run record for the CLI and the app: a sweep measured by stepscope-cli with --json opens in
# the application (stepscope FILE, and --open-file), whose export of the benchmark table is the CLI's CSV, byte for
# byte; the record also lands in the app's history.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${CLI} bench --model tiny --context 32 --batch 2 --mode forward,train --warmup 1 --steps 2
                        --profile memory --csv ${WORKDIR}/cli.csv --json ${WORKDIR}/run.json --quiet
                RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 600)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "stepscope-cli bench exited ${rc}: ${err}")
endif()
set(ENV{QT_QPA_PLATFORM} offscreen)
set(ENV{XDG_CONFIG_HOME} ${WORKDIR}/config)
# Named as a file manager names it (the desktop entry's Exec=stepscope %f): a plain argument.
execute_process(COMMAND ${APP} --history ${WORKDIR}/history.sqlite ${WORKDIR}/run.json
                        --export ${WORKDIR}/export --quit
                RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 600)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "stepscope FILE exited ${rc}: ${err}")
endif()
file(READ ${WORKDIR}/cli.csv cli)
file(READ ${WORKDIR}/export/benchmark.csv app)
if(NOT cli STREQUAL app)
  message(FATAL_ERROR "the app's benchmark.csv differs from the CLI's CSV:\n${cli}\n---\n${app}")
endif()
# The memory timeline travelled in the record: the app shows its peaks.
file(STRINGS ${WORKDIR}/export/memory_peaks.csv peaks)
if(NOT "${peaks}" MATCHES "after optimizer step")
  message(FATAL_ERROR "no memory peaks from the CLI's record: ${peaks}")
endif()
# Reopened from the history it was imported into: the same table again.
execute_process(COMMAND ${APP} --history ${WORKDIR}/history.sqlite --open-run latest --export ${WORKDIR}/again --quit
                RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 600)
file(READ ${WORKDIR}/again/benchmark.csv again)
if(NOT rc EQUAL 0 OR NOT cli STREQUAL again)
  message(FATAL_ERROR "reopened from the history (exit ${rc}, ${err}):\n${again}")
endif()
# Several files side by side: the precision lab's table beside the benchmark's, each in its tab,
# both exported byte for byte.
execute_process(COMMAND ${CLI} precision accumulate --csv ${WORKDIR}/accumulate.csv --json ${WORKDIR}/accumulate.json
                        --quiet RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 600)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "stepscope-cli precision accumulate exited ${rc}: ${err}")
endif()
execute_process(COMMAND ${APP} --history ${WORKDIR}/history.sqlite
                        --open-file ${WORKDIR}/run.json,${WORKDIR}/accumulate.json --export ${WORKDIR}/both --quit
                RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 600)
file(READ ${WORKDIR}/both/benchmark.csv both_bench)
file(READ ${WORKDIR}/accumulate.csv cli_accumulate)
file(GLOB accumulate_exports ${WORKDIR}/both/*accumulat*.csv)
list(LENGTH accumulate_exports n)
if(NOT rc EQUAL 0 OR NOT cli STREQUAL both_bench OR NOT n EQUAL 1)
  message(FATAL_ERROR "two files opened side by side (exit ${rc}, ${err}): ${accumulate_exports}")
endif()
file(READ ${accumulate_exports} app_accumulate)
if(NOT cli_accumulate STREQUAL app_accumulate)
  message(FATAL_ERROR "the app's accumulation table differs from the CLI's:\n${cli_accumulate}\n---\n${app_accumulate}")
endif()
