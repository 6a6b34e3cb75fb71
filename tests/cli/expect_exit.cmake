# Runs CLI with ARGS ('|'-separated: a list would not survive add_test) and checks both the exit
# status (STATUS) and that stderr matches EXPECTED; stepscope_cli_error_test checks the message only.
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${CLI} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc STREQUAL "${STATUS}")
  message(FATAL_ERROR "exit status ${rc}, expected ${STATUS}\nstderr: ${err}\nstdout: ${out}")
endif()
if(NOT err MATCHES "${EXPECTED}")
  message(FATAL_ERROR "stderr does not match '${EXPECTED}':\n${err}")
endif()
