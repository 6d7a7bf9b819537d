# CUDA toolkit detection. TORCHLITE_CUDA=AUTO (default) builds the CUDA sources
# when a toolkit is found, ON requires one, OFF never builds them. The result
# is TORCHLITE_WITH_CUDA. No GPU is needed to build: the device count is
# checked at run time.
set(TORCHLITE_CUDA "AUTO" CACHE STRING "Build CUDA support: AUTO, ON or OFF")
set_property(CACHE TORCHLITE_CUDA PROPERTY STRINGS AUTO ON OFF)
set(TORCHLITE_WITH_CUDA OFF)

if(NOT TORCHLITE_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS "/usr/local/cuda/bin/nvcc")
    set(CMAKE_CUDA_COMPILER "/usr/local/cuda/bin/nvcc")
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # Ampere and Hopper GPUs, plus PTX for newer ones (JIT-compiled).
      set(CMAKE_CUDA_ARCHITECTURES "80-real;90")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(TORCHLITE_WITH_CUDA ON)
    message(STATUS "torchlite: CUDA ${CUDAToolkit_VERSION} found; building CUDA support")
  elseif(TORCHLITE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "TORCHLITE_CUDA=ON but no CUDA compiler was found "
                        "(set CMAKE_CUDA_COMPILER or CUDACXX, or use TORCHLITE_CUDA=OFF)")
  else()
    message(STATUS "torchlite: no CUDA toolkit found; building without CUDA")
  endif()
else()
  message(STATUS "torchlite: CUDA disabled (TORCHLITE_CUDA=OFF)")
endif()
