# Finds GoogleTest (Debian's libgtest-dev installs it system-wide).
find_package(GTest QUIET)
if(NOT GTest_FOUND)
  message(FATAL_ERROR
    "GoogleTest was not found. Install it (apt-get install -y libgtest-dev), "
    "point GTest_DIR/GTEST_ROOT at an installation, or configure with "
    "-DTORCHLITE_BUILD_TESTS=OFF.")
endif()
include(GoogleTest)
