# The application's outputs follow the command line's rules (engine/io/output_file.h): a
# read-only file among --export's targets or as --screenshot, a folder, a dangling link, a path
# under a file, or one of the app's own inputs is refused before anything runs, with exit status 2 and a message naming the
# option and the file; the file, its mode and the rest of the folder stay as they were.
set(ENV{QT_QPA_PLATFORM} offscreen)
set(ENV{XDG_CONFIG_HOME} ${WORKDIR}/config)
set(ENV{XDG_DATA_HOME} ${WORKDIR}/data)
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${CLI} bench --model tiny --context 16 --batch 1 --warmup 0 --steps 1 --mode forward --quiet
                        --json ${WORKDIR}/run.json OUTPUT_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench exited ${rc}")
endif()

function(mode_of path out)
  execute_process(COMMAND stat -c %a ${path} OUTPUT_VARIABLE mode OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(${out} ${mode} PARENT_SCOPE)
endfunction()
function(expect_refusal message)
  execute_process(COMMAND ${APP} --history ${WORKDIR}/history.sqlite --open-file ${WORKDIR}/run.json ${ARGN} --quit
                  RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "${message}")
    message(FATAL_ERROR "stepscope ${ARGN}: exit ${rc} (expected 2), stderr:\n${err}\n(expected: ${message})")
  endif()
endfunction()
function(make_read_only path text)
  file(WRITE ${path} "${text}")
  file(CHMOD ${path} PERMISSIONS OWNER_READ GROUP_READ WORLD_READ)
endfunction()

# A read-only table among the export's targets: refused by name, nothing else written.
file(MAKE_DIRECTORY ${WORKDIR}/export)
make_read_only(${WORKDIR}/export/benchmark.csv "kept\n")
expect_refusal("--export: cannot write ${WORKDIR}/export/benchmark.csv: the file is read-only" --export ${WORKDIR}/export)
file(READ ${WORKDIR}/export/benchmark.csv text)
mode_of(${WORKDIR}/export/benchmark.csv mode)
file(GLOB written ${WORKDIR}/export/*)
if(NOT text STREQUAL "kept\n" OR NOT mode STREQUAL "444" OR NOT written STREQUAL "${WORKDIR}/export/benchmark.csv")
  message(FATAL_ERROR "the export changed its folder: '${text}', mode ${mode}, files ${written}")
endif()
# The window screenshots --export also writes are its targets too.
file(REMOVE ${WORKDIR}/export/benchmark.csv)
make_read_only(${WORKDIR}/export/window_benchmark.png "kept\n")
expect_refusal("--export: cannot write ${WORKDIR}/export/window_benchmark.png: the file is read-only"
               --export ${WORKDIR}/export)

# A read-only screenshot.
make_read_only(${WORKDIR}/window.png "kept\n")
expect_refusal("--screenshot: cannot write ${WORKDIR}/window.png: the file is read-only" --screenshot ${WORKDIR}/window.png)
file(READ ${WORKDIR}/window.png text)
mode_of(${WORKDIR}/window.png mode)
if(NOT text STREQUAL "kept\n" OR NOT mode STREQUAL "444")
  message(FATAL_ERROR "the screenshot replaced a read-only file: '${text}', mode ${mode}")
endif()

# Other paths the command line refuses.
file(CREATE_LINK ${WORKDIR}/missing.png ${WORKDIR}/dangling.png SYMBOLIC)
expect_refusal("--screenshot: cannot write ${WORKDIR}/dangling.png: it is a symbolic link to a file that does not exist"
               --screenshot ${WORKDIR}/dangling.png)
expect_refusal("--screenshot: ${WORKDIR}/export is a folder, not a file" --screenshot ${WORKDIR}/export)
expect_refusal("--export: cannot write into ${WORKDIR}/run.json/out: ${WORKDIR}/run.json is not a folder"
               --export ${WORKDIR}/run.json/out)
file(MAKE_DIRECTORY ${WORKDIR}/export2/benchmark.csv)
expect_refusal("--export: ${WORKDIR}/export2/benchmark.csv is a folder, not a file" --export ${WORKDIR}/export2)

# The app's own inputs are never its outputs: the run file it opens, in another spelling, and its
# history database; both stay byte for byte.
file(READ ${WORKDIR}/run.json run_before)
file(CREATE_LINK ${WORKDIR}/run.json ${WORKDIR}/run-link.json SYMBOLIC)
expect_refusal("--screenshot: ${WORKDIR}/export/../run-link.json is the file given as --open-file; it would be written over"
               --screenshot ${WORKDIR}/export/../run-link.json)
file(READ ${WORKDIR}/run.json run_after)
if(NOT run_after STREQUAL run_before)
  message(FATAL_ERROR "the screenshot wrote over the run file it opened")
endif()
expect_refusal("--screenshot: ${WORKDIR}/history.sqlite is the file given as the run history; it would be written over"
               --screenshot ${WORKDIR}/history.sqlite)

# Writable targets are replaced whole, as before.
file(WRITE ${WORKDIR}/export3/benchmark.csv "old\n")
execute_process(COMMAND ${APP} --history ${WORKDIR}/history.sqlite --open-file ${WORKDIR}/run.json
                        --export ${WORKDIR}/export3 --screenshot ${WORKDIR}/window3.png --quit
                RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 60)
file(READ ${WORKDIR}/export3/benchmark.csv text)
if(NOT rc EQUAL 0 OR text STREQUAL "old\n" OR NOT EXISTS ${WORKDIR}/window3.png)
  message(FATAL_ERROR "a writable export: exit ${rc}, stderr:\n${err}")
endif()
