# The kernel clock (src/tracer/bpf_clock.h): a BPF object built with clang, turned into a
# skeleton header by bpftool, loaded through libbpf. Every piece is a Debian package
# (tools/setup.sh); when one is missing iobench builds without the clock and says why
# (IOBENCH_HAVE_BPF=0, IOBENCH_BPF_MISSING, bpf_clock_unavailable_reason()).
option(IOBENCH_BPF "Build the kernel clock (eBPF) when libbpf, bpftool and clang are found" ON)

set(iobench_bpf_missing "")
if(NOT IOBENCH_BPF)
  list(APPEND iobench_bpf_missing "IOBENCH_BPF=OFF")
elseif(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  # The program reads x86-64 registers and the i386 ABI's TS_COMPAT bit.
  list(APPEND iobench_bpf_missing "x86-64 only")
else()
  pkg_check_modules(LIBBPF IMPORTED_TARGET libbpf)
  find_program(IOBENCH_BPFTOOL bpftool PATHS /usr/sbin /sbin)
  find_program(IOBENCH_BPF_CLANG NAMES clang clang-14)
  if(NOT LIBBPF_FOUND)
    list(APPEND iobench_bpf_missing "no libbpf: apt install libbpf-dev")
  endif()
  if(NOT IOBENCH_BPFTOOL)
    list(APPEND iobench_bpf_missing "no bpftool: apt install bpftool")
  endif()
  if(NOT IOBENCH_BPF_CLANG)
    list(APPEND iobench_bpf_missing "no clang: apt install clang")
  endif()
endif()

target_sources(iobench_tracer PRIVATE
  ${PROJECT_SOURCE_DIR}/src/tracer/bpf_bias.cc
  ${PROJECT_SOURCE_DIR}/src/tracer/bpf_clock.cc
  ${PROJECT_SOURCE_DIR}/src/tracer/bpf_loader.cc)

# For iobenchConfig.cmake.in (configured in the top directory): a consumer links libbpf too.
set(IOBENCH_WITH_BPF 0 CACHE INTERNAL "")
if(iobench_bpf_missing)
  list(JOIN iobench_bpf_missing "; " iobench_bpf_why)
  message(STATUS "iobench: building WITHOUT the kernel clock (bpf): ${iobench_bpf_why}")
  target_compile_definitions(iobench_tracer PUBLIC IOBENCH_HAVE_BPF=0
                             IOBENCH_BPF_MISSING="${iobench_bpf_why}")
  return()
endif()

set(bpf_src ${PROJECT_SOURCE_DIR}/src/tracer/bpf/syscall_clock.bpf.c)
set(bpf_dir ${CMAKE_BINARY_DIR}/bpf)
set(bpf_obj ${bpf_dir}/syscall_clock.bpf.o)
set(bpf_skel ${bpf_dir}/syscall_clock.skel.h)
add_custom_command(
  OUTPUT ${bpf_obj}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${bpf_dir}
  # -g: the BTF that CO-RE relocations and the skeleton's typed maps need.
  COMMAND ${IOBENCH_BPF_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall
          -I${PROJECT_SOURCE_DIR}/src/tracer/bpf -I${LIBBPF_INCLUDEDIR} -c ${bpf_src} -o ${bpf_obj}
  DEPENDS ${bpf_src} ${PROJECT_SOURCE_DIR}/src/tracer/bpf/clock_abi.h
          ${PROJECT_SOURCE_DIR}/src/tracer/bpf/kernel_types.h
          ${PROJECT_SOURCE_DIR}/src/tracer/bpf/file_names.bpf.h
          ${PROJECT_SOURCE_DIR}/src/tracer/bpf/thread_rows.bpf.h
  COMMENT "BPF object syscall_clock.bpf.o"
  VERBATIM)
add_custom_command(
  OUTPUT ${bpf_skel}
  COMMAND ${IOBENCH_BPFTOOL} gen skeleton ${bpf_obj} name syscall_clock > ${bpf_skel}
  DEPENDS ${bpf_obj}
  COMMENT "BPF skeleton syscall_clock.skel.h"
  VERBATIM)
# A custom command's output drives only targets of its own directory: a target here, which
# iobench_tracer (made in the top directory) depends on.
add_custom_target(iobench_bpf_skeleton DEPENDS ${bpf_skel})
add_dependencies(iobench_tracer iobench_bpf_skeleton)
target_include_directories(iobench_tracer PRIVATE ${bpf_dir})
target_link_libraries(iobench_tracer PUBLIC PkgConfig::LIBBPF)
set(IOBENCH_WITH_BPF 1 CACHE INTERNAL "")
target_compile_definitions(iobench_tracer PUBLIC IOBENCH_HAVE_BPF=1)
message(STATUS "iobench: building with the kernel clock (bpf): libbpf ${LIBBPF_VERSION}, ${IOBENCH_BPFTOOL}")

# The clock from a shell, for the measurement scripts (tools/bpf_accuracy.sh) and the cost of
# its programs (iobench-bpf-clock cost).
add_executable(iobench-bpf-clock ${PROJECT_SOURCE_DIR}/tools/bpf_clock/main.cc)
target_link_libraries(iobench-bpf-clock PRIVATE iobench_tracer)
set_target_properties(iobench-bpf-clock PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
