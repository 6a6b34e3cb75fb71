# Writes bash completion for stepscope-cli from its own help, so that it cannot drift: the
# commands from `stepscope-cli help`, each command's subcommands (precision accumulate|autocast)
# and options from `stepscope-cli COMMAND --help`; options whose value names a file (F, FILE,
# DIR, DB, PATH) complete file names, `on|off`-style values their words.
#   cmake -DPROGRAM=bin/stepscope-cli -DOUTPUT=completion/stepscope-cli -P bash_completion.cmake
cmake_minimum_required(VERSION 3.20)

function(run out)
  execute_process(COMMAND ${PROGRAM} ${ARGN} OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} ${ARGN} exited ${rc}: ${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

run(main help)
string(REGEX MATCHALL "\n  [a-z]+ " command_lines "${main}")
set(commands)
foreach(line IN LISTS command_lines)
  string(STRIP "${line}" command)
  list(APPEND commands ${command})
endforeach()
list(REMOVE_DUPLICATES commands)
list(LENGTH commands count)
if(count LESS 5)
  message(FATAL_ERROR "found only '${commands}' in stepscope-cli help")
endif()

set(cases "")
foreach(command IN LISTS commands)
  if(command STREQUAL "models" OR command STREQUAL "version")
    continue()  # no options
  endif()
  run(text ${command} --help)
  # Subcommands: the word after the command in its usage lines.
  string(REGEX MATCHALL "usage: stepscope-cli ${command} [a-z]+" usages "${text}")
  set(subcommands)
  foreach(usage IN LISTS usages)
    string(REGEX REPLACE ".* ([a-z]+)$" "\\1" sub "${usage}")
    list(APPEND subcommands ${sub})
  endforeach()
  if(subcommands)
    list(REMOVE_DUPLICATES subcommands)
  endif()
  string(REGEX MATCHALL "\n  --[a-z0-9-]+( [^ \n]+)?" option_lines "${text}")
  set(options "--help")
  set(file_options)
  set(value_options)
  set(word_cases "")
  foreach(line IN LISTS option_lines)
    string(REGEX REPLACE "^\n  (--[a-z0-9-]+).*" "\\1" option "${line}")
    list(APPEND options ${option})
    if(line MATCHES "^\n  --[a-z0-9-]+ (F|FILE|DIR|DB|PATH|RECORD)(\\[|$)")
      list(APPEND file_options ${option})
    elseif(line MATCHES "^\n  --[a-z0-9-]+ [A-Z]")
      list(APPEND value_options ${option})  # a number, a name: nothing to offer
    elseif(line MATCHES "^\n  --[a-z0-9-]+ ([a-z0-9]+(\\|[a-z0-9]+)+)$")
      string(REPLACE "|" " " words "${CMAKE_MATCH_1}")
      string(APPEND word_cases "        ${option}) COMPREPLY=($(compgen -W '${words}' -- \"$cur\")); return ;;\n")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES options)
  list(JOIN options " " options_text)
  list(JOIN subcommands " " subcommands_text)
  set(file_case "")
  if(file_options)
    list(REMOVE_DUPLICATES file_options)
    list(JOIN file_options "|" file_pattern)
    set(file_case "        ${file_pattern}) _filedir; return ;;\n")
  endif()
  if(value_options)
    list(REMOVE_DUPLICATES value_options)
    list(REMOVE_ITEM value_options ${file_options})
  endif()
  if(value_options)
    list(JOIN value_options "|" value_pattern)
    string(APPEND word_cases "        ${value_pattern}) return ;;\n")
  endif()
  string(APPEND cases "    ${command})\n      case \"$prev\" in\n${file_case}${word_cases}      esac\n")
  if(subcommands)
    string(APPEND cases "      if [[ $cword -eq 2 ]]; then COMPREPLY=($(compgen -W '${subcommands_text}' -- \"$cur\")); return; fi\n")
  endif()
  string(APPEND cases "      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '${options_text}' -- \"$cur\")); else _filedir; fi\n      ;;\n")
endforeach()

list(JOIN commands " " commands_text)
file(WRITE ${OUTPUT} "# bash completion for stepscope-cli, generated from its --help (packaging/bash_completion.cmake)
_stepscope_cli() {
  local cur prev words cword
  _init_completion || return
  if [[ $cword -eq 1 ]]; then
    COMPREPLY=($(compgen -W '${commands_text} help' -- \"$cur\"))
    return
  fi
  case \"\${words[1]}\" in
${cases}  esac
}
complete -F _stepscope_cli stepscope-cli
")
