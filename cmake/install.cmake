# What `cmake --install` puts under the prefix besides the program and its manual: the library
# (libbloomtool.a), its public headers, a CMake package (find_package(bloomtool CONFIG) ->
# bloomtool::bloomtool), a pkg-config file and the shell completions.
include(CMakePackageConfigHelpers)

set(BLOOMTOOL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/bloomtool)
install(TARGETS bloomtool_lib EXPORT bloomtoolTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/bloomtool
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/lib/generated/bloomtool/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/bloomtool)
install(EXPORT bloomtoolTargets NAMESPACE bloomtool:: DESTINATION ${BLOOMTOOL_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/bloomtoolConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/bloomtoolConfig.cmake
                              INSTALL_DESTINATION ${BLOOMTOOL_CMAKE_DIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/bloomtoolConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/bloomtoolConfig.cmake
              ${PROJECT_BINARY_DIR}/package/bloomtoolConfigVersion.cmake
        DESTINATION ${BLOOMTOOL_CMAKE_DIR})

# bloomtool.pc names the prefix it is installed under (`cmake --install --prefix` included), so it
# is written at install time, into a directory of its own per prefix (installs may run at once).
set(BLOOMTOOL_PC_PREFIX "@BLOOMTOOL_PC_PREFIX@")
configure_file(${CMAKE_CURRENT_LIST_DIR}/bloomtool.pc.in ${PROJECT_BINARY_DIR}/package/bloomtool.pc.in
               @ONLY)
install(CODE "
  set(BLOOMTOOL_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  string(MD5 pc_dir \"\${CMAKE_INSTALL_PREFIX}\")
  set(pc_dir \"${PROJECT_BINARY_DIR}/package/pc-\${pc_dir}\")
  configure_file(\"${PROJECT_BINARY_DIR}/package/bloomtool.pc.in\" \"\${pc_dir}/bloomtool.pc\" @ONLY)
  file(INSTALL \"\${pc_dir}/bloomtool.pc\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")")

# Shell completions, generated from the command tree by the freshly built program.
set(BLOOMTOOL_COMPLETIONS_DIR ${PROJECT_BINARY_DIR}/completions)
add_custom_command(
  OUTPUT ${BLOOMTOOL_COMPLETIONS_DIR}/bloomtool ${BLOOMTOOL_COMPLETIONS_DIR}/_bloomtool
  COMMAND ${CMAKE_COMMAND} -E make_directory ${BLOOMTOOL_COMPLETIONS_DIR}
  COMMAND sh -c "\"$1\" completions bash > \"$2\"/bloomtool && \"$1\" completions zsh > \"$2\"/_bloomtool"
          sh $<TARGET_FILE:bloomtool> ${BLOOMTOOL_COMPLETIONS_DIR}
  DEPENDS bloomtool
  COMMENT "Generating bash and zsh completions"
  VERBATIM)
add_custom_target(bloomtool_completions ALL
                  DEPENDS ${BLOOMTOOL_COMPLETIONS_DIR}/bloomtool ${BLOOMTOOL_COMPLETIONS_DIR}/_bloomtool)
install(FILES ${BLOOMTOOL_COMPLETIONS_DIR}/bloomtool
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${BLOOMTOOL_COMPLETIONS_DIR}/_bloomtool
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
