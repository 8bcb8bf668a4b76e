# CPack: `cpack -G DEB` in a build folder makes fz7_<version>_<arch>.deb
# with the binary, the man page, the license and the bash and zsh completions
# (installed by the top-level CMakeLists.txt).
set(CPACK_PACKAGE_NAME "fz7")
set(CPACK_PACKAGE_VENDOR "fz7 authors")
set(CPACK_PACKAGE_CONTACT "fz7 authors <fz7@users.noreply.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "7z and xz archiver with AVX-512 LZMA and VAES-512 AES kernels")
set(CPACK_RESOURCE_FILE_LICENSE "${CMAKE_SOURCE_DIR}/LICENSE")
set(CPACK_DEBIAN_PACKAGE_SECTION "utils")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# `h` opens libcrypto itself (cmd_hash.c), so shlibdeps cannot see it.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libssl3")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
include(CPack)
