# Opening a large run file stays linear: 2,000 configurations open, are kept in the history and
# export in seconds (200 took 14 s when every configuration redrew every chart); the test's
# timeout catches a return to quadratic work.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${CLI} bench --model tiny --context 16 --batch 1 --warmup 0 --steps 2 --mode forward --quiet
                        --json ${WORKDIR}/one.json --csv ${WORKDIR}/one.csv RESULT_VARIABLE rc)
execute_process(COMMAND python3 ${SOURCE_DIR}/tests/reference/make_large_run.py ${WORKDIR}/one.json 2000
                        ${WORKDIR}/large.json RESULT_VARIABLE made)
set(ENV{QT_QPA_PLATFORM} offscreen)
set(ENV{XDG_CONFIG_HOME} ${WORKDIR}/config)
execute_process(COMMAND ${APP} --history ${WORKDIR}/history.sqlite --open-file ${WORKDIR}/large.json
                        --export ${WORKDIR}/export --quit RESULT_VARIABLE opened ERROR_VARIABLE err TIMEOUT 60)
file(STRINGS ${WORKDIR}/export/benchmark.csv rows)
list(LENGTH rows count)
if(NOT rc EQUAL 0 OR NOT made EQUAL 0 OR NOT opened EQUAL 0 OR NOT count EQUAL 2001)
  message(FATAL_ERROR "large file: bench ${rc}, generator ${made}, app ${opened} (${err}), ${count} CSV lines")
endif()
