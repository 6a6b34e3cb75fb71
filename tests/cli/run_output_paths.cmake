# Outputs that are not regular files: /dev/null stays a device, a pipe reader gets one table,
# a symbolic link stays a link; "| head -1" does not stop the run before its JSON is written.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
set(run bench --model tiny --context 16 --batch 1 --warmup 0 --steps 1 --mode forward,train --quiet)
string(JOIN " " run_in_shell ${run})  # a list would reach sh as commands separated by ';'
execute_process(COMMAND ${CLI} ${run} --csv /dev/null RESULT_VARIABLE rc ERROR_VARIABLE err)
execute_process(COMMAND test -c /dev/null RESULT_VARIABLE is_device)
if(NOT rc EQUAL 0 OR NOT is_device EQUAL 0 OR EXISTS /dev/null.partial)
  message(FATAL_ERROR "--csv /dev/null: exit ${rc}, still a device: ${is_device}: ${err}")
endif()
# A symbolic link to a results file: the file gets the table, the link stays.
file(WRITE ${WORKDIR}/target.csv "old")
file(CREATE_LINK ${WORKDIR}/target.csv ${WORKDIR}/link.csv SYMBOLIC)
execute_process(COMMAND ${CLI} ${run} --csv ${WORKDIR}/link.csv RESULT_VARIABLE rc ERROR_VARIABLE err)
file(READ ${WORKDIR}/target.csv table)
if(NOT rc EQUAL 0 OR NOT IS_SYMLINK ${WORKDIR}/link.csv OR NOT table MATCHES "^model,")
  message(FATAL_ERROR "--csv through a link: exit ${rc}, table: ${table} ${err}")
endif()
# A pipe: the reader sees the header and both rows once.
execute_process(COMMAND sh -c "mkfifo '${WORKDIR}/pipe' && (cat '${WORKDIR}/pipe' > '${WORKDIR}/piped.csv' &) && '${CLI}' ${run_in_shell} --csv '${WORKDIR}/pipe'"
                RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 120)
execute_process(COMMAND sleep 1)
file(STRINGS ${WORKDIR}/piped.csv lines)
list(LENGTH lines count)
if(NOT rc EQUAL 0 OR NOT count EQUAL 3)
  message(FATAL_ERROR "--csv to a pipe: exit ${rc}, ${count} lines (expected 3): ${err}")
endif()
# A reader that stops after one line: the run still ends and writes its JSON.
execute_process(COMMAND sh -c "'${CLI}' ${run_in_shell} --json '${WORKDIR}/run.json' | head -1"
                RESULT_VARIABLE rc OUTPUT_VARIABLE first TIMEOUT 120)
file(READ ${WORKDIR}/run.json json)
string(JSON entries LENGTH "${json}" entries)
if(NOT first MATCHES "^model," OR NOT entries EQUAL 2)
  message(FATAL_ERROR "| head -1: first line ${first}, ${entries} JSON entries")
endif()
# "-" is standard output: the run record goes there, the table to its file.
execute_process(COMMAND ${CLI} ${run} --csv ${WORKDIR}/dash.csv --json - RESULT_VARIABLE rc OUTPUT_VARIABLE stdout)
if(NOT rc EQUAL 0 OR NOT stdout MATCHES "^{\"entries\"" OR NOT EXISTS ${WORKDIR}/dash.csv)
  message(FATAL_ERROR "--json -: exit ${rc}, stdout begins ${stdout}")
endif()
# A file name that is not valid UTF-8 is still a file name: both outputs are written whole.
execute_process(COMMAND sh -c "cd '${WORKDIR}' && '${CLI}' ${run_in_shell} --csv \"$(printf 'bad\\377.csv')\" --json \"$(printf 'bad\\377.json')\""
                RESULT_VARIABLE rc ERROR_VARIABLE err)
file(GLOB written ${WORKDIR}/bad*)
list(LENGTH written found)
if(NOT rc EQUAL 0 OR found LESS 2)
  message(FATAL_ERROR "non-UTF-8 output names: exit ${rc}, ${found} files: ${err}")
endif()
