# What `cmake --install` puts under the prefix besides the program and its manual: the C++
# library (libbloomtool.a), the C library (libbloomtool.so.0 and its development link), the public
# headers, a CMake package (find_package(bloomtool CONFIG) -> bloomtool::bloomtool and
# bloomtool::bloomtool_c), pkg-config files (bloomtool.pc, bloomtool-c.pc), the Python module and
# the shell completions.
include(CMakePackageConfigHelpers)

set(BLOOMTOOL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/bloomtool)
# Modes of what install(CODE) copies: fixed, never the source tree's (a release tarball's files
# are 0664) nor the umask's.
set(bloomtool_file_mode "OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ")
set(bloomtool_dir_mode "OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE")
install(TARGETS bloomtool_lib EXPORT bloomtoolTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(TARGETS bloomtool_c EXPORT bloomtoolTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library NAMELINK_COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/bloomtool
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/lib/generated/bloomtool/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/bloomtool COMPONENT dev)
install(EXPORT bloomtoolTargets NAMESPACE bloomtool:: DESTINATION ${BLOOMTOOL_CMAKE_DIR}
        COMPONENT dev)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/bloomtoolConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/bloomtoolConfig.cmake
                              INSTALL_DESTINATION ${BLOOMTOOL_CMAKE_DIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/bloomtoolConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/bloomtoolConfig.cmake
              ${PROJECT_BINARY_DIR}/package/bloomtoolConfigVersion.cmake
        DESTINATION ${BLOOMTOOL_CMAKE_DIR} COMPONENT dev)

# bloomtool.pc names the prefix it is installed under (`cmake --install --prefix` included), so it
# is written at install time, into a directory of its own per prefix (installs may run at once).
set(BLOOMTOOL_PC_PREFIX "@BLOOMTOOL_PC_PREFIX@")
foreach(pc bloomtool bloomtool-c)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${PROJECT_BINARY_DIR}/package/${pc}.pc.in @ONLY)
  install(CODE "
    set(BLOOMTOOL_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    string(MD5 pc_dir \"\${CMAKE_INSTALL_PREFIX}\")
    set(pc_dir \"${PROJECT_BINARY_DIR}/package/pc-\${pc_dir}\")
    configure_file(\"${PROJECT_BINARY_DIR}/package/${pc}.pc.in\" \"\${pc_dir}/${pc}.pc\" @ONLY)
    file(INSTALL \"\${pc_dir}/${pc}.pc\"
         DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\"
         FILE_PERMISSIONS ${bloomtool_file_mode} DIR_PERMISSIONS ${bloomtool_dir_mode})" COMPONENT dev)
endforeach()

# The Python module (python/bloomtool, Python over libbloomtool.so.0 with ctypes, and its optional
# extension bloomtool._speedups when python/CMakeLists.txt built it). Where
# Debian's python3 finds it: <prefix>/lib/python3/dist-packages for the prefix /usr (the
# directory of Debian's own packages), <prefix>/lib/python3.X/dist-packages for another prefix
# (on sys.path for /usr/local); -DBLOOMTOOL_PYTHON_DIR=<dir> (relative to the prefix, or absolute)
# chooses. Its _libpath.py names the installed libbloomtool.so.0 relative to the module, so the
# module finds the library of its own install, moved prefix or DESTDIR included.
find_package(Python3 COMPONENTS Interpreter QUIET)
set(BLOOMTOOL_PYTHON_DIR "" CACHE STRING
    "Where cmake --install puts the Python module bloomtool/ (default: see cmake/install.cmake)")
if(Python3_Interpreter_FOUND)
  set(bloomtool_py_versioned lib/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/dist-packages)
else()
  set(bloomtool_py_versioned lib/python3/dist-packages)
endif()
set(bloomtool_py_extension "")
if(TARGET bloomtool_speedups)
  set(bloomtool_py_extension "$<TARGET_FILE:bloomtool_speedups>")
endif()
install(CODE "
  set(py_dir \"${BLOOMTOOL_PYTHON_DIR}\")
  if(NOT py_dir)
    if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
      set(py_dir lib/python3/dist-packages)
    else()
      set(py_dir ${bloomtool_py_versioned})
    endif()
  endif()
  if(NOT IS_ABSOLUTE \"\${py_dir}\")
    set(py_dir \"\${CMAKE_INSTALL_PREFIX}/\${py_dir}\")
  endif()
  file(INSTALL \"${PROJECT_SOURCE_DIR}/python/bloomtool\" DESTINATION \"\${py_dir}\"
       FILE_PERMISSIONS ${bloomtool_file_mode} DIR_PERMISSIONS ${bloomtool_dir_mode}
       FILES_MATCHING PATTERN \"*.py\" PATTERN \"py.typed\" PATTERN \"__pycache__\" EXCLUDE)
  if(NOT \"${bloomtool_py_extension}\" STREQUAL \"\")
    file(INSTALL \"${bloomtool_py_extension}\" DESTINATION \"\${py_dir}/bloomtool\"
         FILE_PERMISSIONS ${bloomtool_file_mode})
  endif()
  file(RELATIVE_PATH lib \"\${py_dir}/bloomtool\"
       \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libbloomtool.so.${BLOOMTOOL_C_SOVERSION}\")
  string(MD5 gen_dir \"\${py_dir}\")
  set(gen_dir \"${PROJECT_BINARY_DIR}/package/py-\${gen_dir}\")
  file(WRITE \"\${gen_dir}/_libpath.py\"
       \"# Written by cmake --install: libbloomtool.so of this install, relative to this directory.\\n\"
       \"LIBRARY = \\\"\${lib}\\\"\\n\")
  file(INSTALL \"\${gen_dir}/_libpath.py\" DESTINATION \"\${py_dir}/bloomtool\"
       FILE_PERMISSIONS ${bloomtool_file_mode})" COMPONENT python)

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
