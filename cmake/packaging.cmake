# `cpack -G DEB` (from the build directory): four Debian packages, as Debian splits a library
#   bloomtool          the program, its manual and the bash and zsh completions
#   libbloomtool0      the C library libbloomtool.so.0 (shlibs, symbols, ldconfig trigger)
#   libbloomtool-dev   headers, the static C++ library, the libbloomtool.so link, CMake and
#                      pkg-config files
#   python3-bloomtool  the Python module: with its extension bloomtool._speedups when it is built
#                      (then of this architecture and for this Python 3.X), else architecture all
# Debian's conventions that `cmake --install` does not follow (gzipped manual and changelog,
# stripped libraries, a copyright file per package, the library's dependencies) are applied to
# the staged files by packaging/deb_prebuild.cmake.
set(BLOOMTOOL_DEB_MAINTAINER "bloomtool maintainers <maintainers@users.noreply.a-seed-618476ee.example>"
    CACHE STRING "Maintainer field of the Debian package")
set(BLOOMTOOL_DEB_RELEASE 1 CACHE STRING "Debian revision of the package (VERSION-REVISION)")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME bloomtool)
set(CPACK_PACKAGE_VENDOR "bloomtool maintainers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: each package's description starts with its own synopsis.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL program library dev python)
set(CPACK_SET_DESTDIR ON)  # bloomtool.pc names the real prefix, not the staging directory
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${BLOOMTOOL_DEB_RELEASE})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${BLOOMTOOL_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(BLOOMTOOL_DEB_VERSION ${PROJECT_VERSION}-${BLOOMTOOL_DEB_RELEASE})

set(CPACK_DEBIAN_PROGRAM_PACKAGE_NAME bloomtool)
set(CPACK_DEBIAN_PROGRAM_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PROGRAM_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PROGRAM_DESCRIPTION
    "build, query and check Bloom, xor and binary fuse filters
bloomtool builds probabilistic membership filters (Bloom, blocked Bloom,
xor and binary fuse) offline from key files or standard input, and answers
'definitely absent' or 'maybe present' for keys later. It reports the model
false-positive rate of each filter next to a measured one, merges filters,
and writes versioned, checksummed filter files atomically.
.
This package holds the program, its manual and bash and zsh completions.")

# The library's Depends come from dpkg-shlibdeps, run by deb_prebuild.cmake: CPack's own run would
# also add postinst and postrm scripts that call ldconfig, where Debian wants the trigger.
set(CPACK_DEBIAN_LIBRARY_PACKAGE_NAME libbloomtool0)
set(CPACK_DEBIAN_LIBRARY_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIBRARY_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_LIBRARY_DESCRIPTION
    "C library to query bloomtool filter files
libbloomtool opens the filter files that bloomtool writes (Bloom, blocked
Bloom, xor and binary fuse) and answers 'definitely absent' or 'maybe
present' for keys in the caller's own process, one at a time or in batches,
from any number of threads, with the checks and error messages of the
bloomtool program. Its C API (bloomtool_c.h) has a stable ABI.
.
This package holds the shared library libbloomtool.so.0.")
set(BLOOMTOOL_DEB_CONTROL ${PROJECT_BINARY_DIR}/package/deb-control)
file(MAKE_DIRECTORY ${BLOOMTOOL_DEB_CONTROL})
file(WRITE ${BLOOMTOOL_DEB_CONTROL}/shlibs
     "libbloomtool ${BLOOMTOOL_C_SOVERSION} libbloomtool${BLOOMTOOL_C_SOVERSION} (>= ${PROJECT_VERSION})\n")
file(WRITE ${BLOOMTOOL_DEB_CONTROL}/triggers "activate-noawait ldconfig\n")
# DEBIAN/symbols from the ABI list of record (abi/libbloomtool.symbols): every symbol since the
# first version, each version node listed too, as dpkg-gensymbols writes it.
file(STRINGS ${PROJECT_SOURCE_DIR}/abi/libbloomtool.symbols bloomtool_abi REGEX "^[^#]")
# A symbol added to the list reconfigures an existing build tree (else its .deb keeps the old list).
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${PROJECT_SOURCE_DIR}/abi/libbloomtool.symbols)
set(bloomtool_symbols "libbloomtool.so.${BLOOMTOOL_C_SOVERSION} libbloomtool${BLOOMTOOL_C_SOVERSION} #MINVER#\n")
string(APPEND bloomtool_symbols "* Build-Depends-Package: libbloomtool-dev\n")
set(bloomtool_nodes "")
foreach(sym IN LISTS bloomtool_abi)
  string(REGEX REPLACE "^(.*)@@(.*)$" "\\1@\\2" sym "${sym}")
  string(REGEX REPLACE "^.*@" "" node "${sym}")
  list(APPEND bloomtool_nodes ${node})
  string(APPEND bloomtool_symbols " ${sym} 0.1.0\n")
endforeach()
list(REMOVE_DUPLICATES bloomtool_nodes)
foreach(node IN LISTS bloomtool_nodes)
  string(APPEND bloomtool_symbols " ${node}@${node} 0.1.0\n")
endforeach()
file(WRITE ${BLOOMTOOL_DEB_CONTROL}/symbols "${bloomtool_symbols}")
set(CPACK_DEBIAN_LIBRARY_PACKAGE_CONTROL_EXTRA
    ${BLOOMTOOL_DEB_CONTROL}/shlibs ${BLOOMTOOL_DEB_CONTROL}/symbols ${BLOOMTOOL_DEB_CONTROL}/triggers)

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libbloomtool-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_SHLIBDEPS OFF)
# The static library needs these to link; the C library only itself.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libbloomtool0 (= ${BLOOMTOOL_DEB_VERSION}), libfmt-dev, libzstd-dev, libsimdjson-dev, libxxhash-dev, zlib1g-dev, libsodium-dev")
set(CPACK_DEBIAN_DEV_DESCRIPTION
    "development files of the bloomtool libraries
The C API of libbloomtool (bloomtool_c.h, libbloomtool.so, pkg-config
bloomtool-c) and the static C++ library libbloomtool.a with its headers
(bloomtool/bloomtool.h and the public headers it includes), a CMake package
(find_package(bloomtool)) and a pkg-config file (bloomtool).")

set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-bloomtool)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SHLIBDEPS OFF)
if(TARGET bloomtool_speedups)
  # The extension is built for one Python 3.X (its file name says which): the package runs with
  # that version, and deb_prebuild.cmake adds the extension's own dependencies (dpkg-shlibdeps).
  # The architecture is CPack's default, the build machine's.
  math(EXPR bloomtool_py_next "${Python3_VERSION_MINOR} + 1")
  set(BLOOMTOOL_DEB_PYTHON_DEPENDS
      "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}~), python3 (<< ${Python3_VERSION_MAJOR}.${bloomtool_py_next}), libbloomtool0 (>= ${PROJECT_VERSION})")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "${BLOOMTOOL_DEB_PYTHON_DEPENDS}")
else()
  set(CPACK_DEBIAN_PYTHON_PACKAGE_ARCHITECTURE all)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3:any, libbloomtool0 (>= ${PROJECT_VERSION})")
  set(BLOOMTOOL_DEB_PYTHON_DEPENDS "")
endif()
# postinst byte-compiles the module (py3compile), prerm removes what that and any import wrote
# (py3clean), as Debian's Python packages do: no __pycache__ is left behind on removal.
set(CPACK_DEBIAN_PYTHON_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/packaging/python3-bloomtool/postinst
    ${PROJECT_SOURCE_DIR}/packaging/python3-bloomtool/prerm)
set(CPACK_DEBIAN_PYTHON_DESCRIPTION
    "query bloomtool filter files from Python
A Python module (ctypes) over libbloomtool: bloomtool.open(path),
'key in f', f.contains_many(keys) as one call into the library, f.info,
with the checks and error messages of the bloomtool program.")

string(TIMESTAMP BLOOMTOOL_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file(${PROJECT_SOURCE_DIR}/packaging/changelog.Debian.in
               ${PROJECT_BINARY_DIR}/package/changelog.Debian @ONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
set(CPACK_BLOOMTOOL_COPYRIGHT ${PROJECT_SOURCE_DIR}/packaging/copyright)
set(BLOOMTOOL_DEB_CHANGELOG ${PROJECT_BINARY_DIR}/package/changelog.Debian)
configure_file(${PROJECT_SOURCE_DIR}/packaging/deb_prebuild.cmake.in
               ${PROJECT_BINARY_DIR}/package/deb_prebuild.cmake @ONLY)
set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_BINARY_DIR}/package/deb_prebuild.cmake)

include(CPack)
