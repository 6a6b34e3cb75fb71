# `cpack -G DEB` (or TGZ) in the build folder packages the binaries.
install(TARGETS stepscope stepscope-cli RUNTIME DESTINATION bin)
set(CPACK_PACKAGE_NAME "stepscope")
set(CPACK_PACKAGE_VENDOR "Stepscope")
set(CPACK_PACKAGE_CONTACT "Stepscope developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_GENERATOR "TGZ")
include(CPack)
