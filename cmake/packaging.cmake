# `cpack -G DEB` (from the build directory): one Debian package with the program, its manual, the
# library, its headers, CMake and pkg-config files and the bash and zsh completions. Debian's
# conventions that `cmake --install` does not follow (gzipped manual and changelog, stripped
# static library) are applied to the staged files by packaging/deb_prebuild.cmake.
set(BLOOMTOOL_DEB_MAINTAINER "bloomtool maintainers <maintainers@users.noreply.a-seed-618476ee.example>"
    CACHE STRING "Maintainer field of the Debian package")
set(BLOOMTOOL_DEB_RELEASE 1 CACHE STRING "Debian revision of the package (VERSION-REVISION)")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME bloomtool)
set(CPACK_PACKAGE_VENDOR "bloomtool maintainers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "build, query and check Bloom, xor and binary fuse filters")
set(CPACK_SET_DESTDIR ON)  # bloomtool.pc names the real prefix, not the staging directory
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${BLOOMTOOL_DEB_RELEASE})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${BLOOMTOOL_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The static library needs these to link; the program needs none of them.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libfmt-dev, libzstd-dev, libsimdjson-dev, libxxhash-dev, zlib1g-dev")
# The extended description (CPack takes the synopsis from CPACK_PACKAGE_DESCRIPTION_SUMMARY).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "bloomtool builds probabilistic membership filters (Bloom, blocked Bloom,
xor and binary fuse) offline from key files or standard input, and answers
'definitely absent' or 'maybe present' for keys later. It reports the model
false-positive rate of each filter next to a measured one, merges filters,
and writes versioned, checksummed filter files atomically.
.
This package also holds the static C++ library libbloomtool, its headers,
a CMake package and a pkg-config file, and bash and zsh completions.")

string(TIMESTAMP BLOOMTOOL_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(BLOOMTOOL_DEB_VERSION ${PROJECT_VERSION}-${BLOOMTOOL_DEB_RELEASE})
configure_file(${PROJECT_SOURCE_DIR}/packaging/changelog.Debian.in
               ${PROJECT_BINARY_DIR}/package/changelog.Debian @ONLY)
set(BLOOMTOOL_DEB_CHANGELOG ${PROJECT_BINARY_DIR}/package/changelog.Debian)
configure_file(${PROJECT_SOURCE_DIR}/packaging/deb_prebuild.cmake.in
               ${PROJECT_BINARY_DIR}/package/deb_prebuild.cmake @ONLY)
set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_BINARY_DIR}/package/deb_prebuild.cmake)

include(CPack)
