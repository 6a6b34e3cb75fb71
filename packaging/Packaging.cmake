# What `cmake --install` puts where, and `cpack` (DEB by default, TGZ on request) packages it.
# The .deb is built from a CPU build against Debian's packages: dpkg-shlibdeps computes its
# Depends. A CUDA build against pip's LibTorch installs (or `cpack -G TGZ`) a tree whose binaries
# find that LibTorch through their RPATH (the folders they were linked against outside the
# system's), so it runs next to the PyTorch it was built with, without LD_LIBRARY_PATH.
include(GNUInstallDirs)
set(STEPSCOPE_ID io.github.stepscope.Stepscope)  # desktop entry, icon, AppStream, MIME package
set(STEPSCOPE_SUMMARY "see where the time and memory of Transformer training go")

set(stepscope_programs stepscope-cli)
if(STEPSCOPE_WITH_GUI)
  list(APPEND stepscope_programs stepscope)
endif()
set_target_properties(${stepscope_programs} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS ${stepscope_programs} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(STEPSCOPE_WITH_GUI)
  set(res ${CMAKE_SOURCE_DIR}/resources)
  install(FILES ${res}/${STEPSCOPE_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${res}/${STEPSCOPE_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  install(FILES ${res}/mime/${STEPSCOPE_ID}.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages)
  install(DIRECTORY ${res}/icons/hicolor DESTINATION ${CMAKE_INSTALL_DATADIR}/icons)
endif()
set(stepscope_doc_dir ${CMAKE_INSTALL_DATADIR}/doc/stepscope)  # the package's name, lower case
install(FILES ${CMAKE_SOURCE_DIR}/resources/debian/copyright DESTINATION ${stepscope_doc_dir})

# Man pages and bash completion, from the programs' own --help at build time (they cannot drift).
string(TIMESTAMP stepscope_date "%Y-%m-%d" UTC)
set(man_dir ${CMAKE_BINARY_DIR}/man)
set(pages)
set(cli_commands bench attention precision collectives ddp plan compare check import)
foreach(program IN LISTS stepscope_programs)
  set(page ${man_dir}/${program}.1.gz)
  set(commands)
  if(program STREQUAL "stepscope-cli")
    set(commands ${cli_commands})
  endif()
  string(REPLACE ";" "\\;" commands_arg "${commands}")
  add_custom_command(OUTPUT ${page}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${man_dir}
    COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen
            ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${program}> -DNAME=${program} "-DSUMMARY=${STEPSCOPE_SUMMARY}"
            -DVERSION=${PROJECT_VERSION} -DDATE=${stepscope_date} -DOUTPUT=${man_dir}/${program}.1
            "-DCOMMANDS=${commands_arg}" -P ${CMAKE_SOURCE_DIR}/packaging/man_page.cmake
    DEPENDS ${program} ${CMAKE_SOURCE_DIR}/packaging/man_page.cmake
    COMMENT "Man page of ${program} from its --help")
  list(APPEND pages ${page})
endforeach()
set(completion ${CMAKE_BINARY_DIR}/completion/stepscope-cli)
add_custom_command(OUTPUT ${completion}
  COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:stepscope-cli> -DOUTPUT=${completion}
          -P ${CMAKE_SOURCE_DIR}/packaging/bash_completion.cmake
  DEPENDS stepscope-cli ${CMAKE_SOURCE_DIR}/packaging/bash_completion.cmake
  COMMENT "bash completion of stepscope-cli from its --help")
add_custom_target(stepscope_docs ALL DEPENDS ${pages} ${completion})
install(FILES ${pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${completion} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
# Debian's policy: a changelog in every package's doc folder, compressed reproducibly (a native
# package's: changelog.gz).
set(changelog ${CMAKE_BINARY_DIR}/changelog)
file(WRITE ${changelog}
     "stepscope (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
     "  * Release ${PROJECT_VERSION}: see README.md.\n\n"
     " -- Stepscope developers <stepscope@users.noreply.github.com>  Sat, 28 Nov 2026 00:00:00 +0000\n")
add_custom_command(OUTPUT ${changelog}.gz COMMAND gzip -9nkf ${changelog} DEPENDS ${changelog})
add_custom_target(stepscope_changelog ALL DEPENDS ${changelog}.gz)
install(FILES ${changelog}.gz DESTINATION ${stepscope_doc_dir})

set(CPACK_PACKAGE_NAME "stepscope")
set(CPACK_PACKAGE_VENDOR "Stepscope developers")
set(CPACK_PACKAGE_CONTACT "Stepscope developers <stepscope@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${STEPSCOPE_SUMMARY}")
set(CPACK_PACKAGE_DESCRIPTION "Stepscope runs the training steps, attention sweeps, collectives and
data-parallel experiments of a GPT-style Transformer and shows where their
time, memory and communication go: kernel summaries per range, operators with
their kernels, an active-memory timeline, comparisons and CSV exports, in a Qt
application and a command line. It also opens torch.profiler traces and CUDA
memory snapshots.")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/stepscope/stepscope")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_FILE_NAME "stepscope_${PROJECT_VERSION}_amd64")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(STEPSCOPE_WITH_GUI)
  # Loaded at run time, so not seen by dpkg-shlibdeps: the History's database driver and the
  # window system's platform plugins.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libqt6sql6-sqlite, qt6-qpa-plugins")
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_GENERATOR "DEB")
include(CPack)
