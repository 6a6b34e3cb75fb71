# Writes a man page (roff) for PROGRAM from its own --help text, so that the page cannot drift
# from the program: NAME and SYNOPSIS from the first lines, the whole usage as DESCRIPTION and,
# for stepscope-cli, every command's --help as a section of its own. Then gzip -9n (Debian's
# policy: compressed, reproducible). Run at build time:
#   cmake -DPROGRAM=bin/stepscope-cli -DNAME=stepscope-cli -DSUMMARY="..." -DVERSION=0.1.0
#         -DDATE=2026-11-28 -DOUTPUT=man/stepscope-cli.1 [-DCOMMANDS=bench;attention;...] -P man_page.cmake
cmake_minimum_required(VERSION 3.20)

function(help_of out)
  execute_process(COMMAND ${PROGRAM} ${ARGN} --help OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc
                  TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} ${ARGN} --help exited ${rc}: ${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Verbatim text in roff: backslashes escaped, lines that would read as requests protected.
function(roff_verbatim out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  string(REGEX REPLACE "(^|\n)-" "\\1\\\\-" text "${text}")
  set(${out} ".nf\n${text}\n.fi\n" PARENT_SCOPE)
endfunction()

help_of(main)
roff_verbatim(description "${main}")
string(TOUPPER "${NAME}" upper)
set(page ".TH ${upper} 1 \"${DATE}\" \"${NAME} ${VERSION}\" \"User Commands\"\n")
string(APPEND page ".SH NAME\n${NAME} \\- ${SUMMARY}\n")
string(APPEND page ".SH DESCRIPTION\n${description}")
foreach(command IN LISTS COMMANDS)
  help_of(text ${command})
  roff_verbatim(body "${text}")
  string(TOUPPER "${command}" title)
  string(APPEND page ".SH COMMAND: ${title}\n${body}")
endforeach()
string(APPEND page ".SH SEE ALSO\n")
if(NAME STREQUAL "stepscope")
  string(APPEND page ".BR stepscope-cli (1)\n")
else()
  string(APPEND page ".BR stepscope (1)\n")
endif()
file(WRITE ${OUTPUT} "${page}")
execute_process(COMMAND gzip -9nf ${OUTPUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip ${OUTPUT} failed")
endif()
