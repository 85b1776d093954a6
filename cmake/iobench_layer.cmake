# iobench_layer(<target> FOLDERS <folder>... [DEPS <target>...] [PRIVATE_ROOT])
#
# One static library per layer (docs/ARCHITECTURE.md), built so that an upward include fails
# to compile: the library's only include root is a directory of the build tree,
# <build>/layers/<target>/src, that holds one symlink per folder the layer owns
# (base -> <source>/src/base). A file therefore resolves "base/error.h" only if its target
# owns base/ or links the layer that does; "run/runner.h" from a tracer file is "No such file
# or directory". DEPS are linked PUBLIC: a layer's headers include its dependencies' headers.
# The root ends in src/ so that paths through it still match .clang-tidy's HeaderFilterRegex.
# PRIVATE_ROOT keeps the root to the library's own files (the API: its users see include/).
# Include roots are BUILD_INTERFACE only: none of them is installed (include/iobench is).
function(iobench_layer target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "PRIVATE_ROOT" "" "FOLDERS;DEPS")
  if(NOT arg_FOLDERS)
    message(FATAL_ERROR "iobench_layer(${target}): FOLDERS is required")
  endif()
  set(root ${PROJECT_BINARY_DIR}/layers/${target}/src)
  # Relinked at every configure, so a folder moved out of a layer stops resolving there.
  # file(REMOVE) unlinks each symlink; it never descends into the source folder behind it.
  file(GLOB old LIST_DIRECTORIES true ${root}/*)
  if(old)
    file(REMOVE ${old})
  endif()
  file(MAKE_DIRECTORY ${root})
  foreach(folder IN LISTS arg_FOLDERS)
    cmake_path(GET folder FILENAME name)
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${folder} ${root}/${name} SYMBOLIC)
  endforeach()
  add_library(${target} STATIC)
  if(arg_PRIVATE_ROOT)
    target_include_directories(${target} PRIVATE ${root})
  else()
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${root}>)
  endif()
  target_link_libraries(${target} PUBLIC ${arg_DEPS})
endfunction()
