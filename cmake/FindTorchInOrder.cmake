# LibTorch is looked for in this order:
#   1. an explicit Torch_DIR or CMAKE_PREFIX_PATH given by the user;
#   2. the LibTorch inside an importable python3 `torch` (GPU machines: PyTorch + CUDA);
#   3. Debian's libtorch-dev (CPU).
# Sets STEPSCOPE_WITH_CUDA when the LibTorch found was built with CUDA.

set(_stepscope_torch_origin "")
if(STEPSCOPE_TORCH_ORIGIN AND Torch_DIR)
  set(_stepscope_torch_origin "${STEPSCOPE_TORCH_ORIGIN}")  # a re-configure keeps the first choice
elseif(Torch_DIR OR CMAKE_PREFIX_PATH)
  set(_stepscope_torch_origin "explicit Torch_DIR/CMAKE_PREFIX_PATH")
else()
  find_program(STEPSCOPE_PYTHON3 NAMES python3)
  if(STEPSCOPE_PYTHON3)
    execute_process(
      COMMAND ${STEPSCOPE_PYTHON3} -c "import torch, sys; sys.stdout.write(torch.utils.cmake_prefix_path)"
      OUTPUT_VARIABLE _stepscope_py_torch_prefix
      ERROR_QUIET
      RESULT_VARIABLE _stepscope_py_rc)
    if(_stepscope_py_rc EQUAL 0 AND EXISTS "${_stepscope_py_torch_prefix}/Torch/TorchConfig.cmake")
      list(APPEND CMAKE_PREFIX_PATH "${_stepscope_py_torch_prefix}")
      set(_stepscope_torch_origin "python3 torch (${_stepscope_py_torch_prefix})")
    endif()
  endif()
  if(NOT _stepscope_torch_origin)
    set(_stepscope_torch_origin "system LibTorch (Debian libtorch-dev)")
  endif()
endif()

find_package(Torch REQUIRED)
set(STEPSCOPE_TORCH_ORIGIN "${_stepscope_torch_origin}" CACHE INTERNAL "where LibTorch was found")

# Torch's config appends its flags (the C++ ABI define) to CMAKE_CXX_FLAGS.
set(STEPSCOPE_WITH_CUDA OFF)
if(EXISTS "${TORCH_INSTALL_PREFIX}/lib/libc10_cuda.so" AND NOT STEPSCOPE_FORCE_CPU)
  set(STEPSCOPE_WITH_CUDA ON)
endif()
message(STATUS "Stepscope: LibTorch ${Torch_VERSION} from ${_stepscope_torch_origin}; CUDA: ${STEPSCOPE_WITH_CUDA}")
