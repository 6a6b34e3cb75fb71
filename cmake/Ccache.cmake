# ccache halves rebuilds on 2-core machines; the sloppiness settings let it cache
# translation units that use the precompiled LibTorch header.
find_program(STEPSCOPE_CCACHE ccache)
if(STEPSCOPE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER
      ${CMAKE_COMMAND} -E env CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      ${STEPSCOPE_CCACHE})
  message(STATUS "Stepscope: compiling through ccache (${STEPSCOPE_CCACHE})")
endif()
