# SIGTERM during a long configuration stops after the step in progress: exit status 130, and
# the CSV holds the configuration so far, marked cancelled with the steps it measured.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(COMMAND sh -c "'${CLI}' bench --model tiny --context 64 --batch 2 --warmup 0 --steps 1000000 --mode forward --quiet --csv '${WORKDIR}/rows.csv' & pid=$!; sleep 6; kill -TERM $pid; wait $pid; echo status=$?"
                OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 100)
file(STRINGS ${WORKDIR}/rows.csv rows)
if(NOT out MATCHES "status=130" OR NOT "${rows}" MATCHES ",cancelled,")
  message(FATAL_ERROR "SIGTERM: ${out} ${err}; rows: ${rows}")
endif()
