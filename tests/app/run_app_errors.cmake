# The application refuses what it cannot do before opening a window, with a message and exit
# status 2, and never waits on a dialog when scripted (a timeout here is a hang).
set(ENV{QT_QPA_PLATFORM} offscreen)
set(ENV{XDG_CONFIG_HOME} ${WORKDIR}/config)
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
function(expect_refusal message)
  execute_process(COMMAND ${APP} --history ${WORKDIR}/history.sqlite ${ARGN}
                  RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 120)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "${message}")
    message(FATAL_ERROR "stepscope ${ARGN}: exit ${rc} (expected 2), stderr:\n${err}\n(expected: ${message})")
  endif()
endfunction()
# A run id past every integer type: refused, not a crash.
expect_refusal("--open-run: '99999999999999999999' is not an integer" --open-run 99999999999999999999 --quit)
# (CMake drops an empty argument, so the app sees --open-run followed by --quit.)
expect_refusal("--open-run needs a value" --open-run "" --quit)
# A GPU this machine lacks: said at once, no modal box waiting for a click.
expect_refusal("device 'cuda:7'" --model tiny --device cuda:7 --run --quit)
expect_refusal("--csv is an option of stepscope-cli bench" --model tiny --csv out.csv --run --quit)

# A history that cannot be used: the run still runs and exports, and says it was not kept.
file(WRITE ${WORKDIR}/corrupt.sqlite "this is not a database")
execute_process(COMMAND ${APP} --history ${WORKDIR}/corrupt.sqlite --model tiny --context 16 --batch 1 --warmup 0
                        --steps 1 --mode forward --run --export ${WORKDIR}/kept --quit
                RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 300)
if(NOT rc EQUAL 0 OR NOT err MATCHES "not kept in the history" OR NOT EXISTS ${WORKDIR}/kept/benchmark.csv)
  message(FATAL_ERROR "run with a corrupt history: exit ${rc}, stderr:\n${err}")
endif()
execute_process(COMMAND ${APP} --history ${WORKDIR}/history.sqlite --open-file ${WORKDIR} --quit
                RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 120)
if(rc EQUAL 0 OR NOT err MATCHES "is a folder, not a run file")
  message(FATAL_ERROR "--open-file on a folder: exit ${rc}: ${err}")
endif()
