# iobench_test_paths(TARGET NAME=PATH ...): defines each NAME for the test target as the path
# PATH (absolute, or a $<TARGET_FILE:...>), written relative to the build tree's top and
# resolved at run time (tests/build_paths.h). Absolute paths in a test's compile line would
# make every clone's test objects differ, and no compiler cache could share them.
function(iobench_test_paths target)
  get_target_property(done ${target} IOBENCH_TEST_PATHS)
  if(NOT done)
    set_target_properties(${target} PROPERTIES IOBENCH_TEST_PATHS ON)
    target_compile_options(${target} PRIVATE -include ${PROJECT_SOURCE_DIR}/tests/build_paths.h)
    target_compile_definitions(${target} PRIVATE
      "IOBENCH_BUILD_TOP=\"$<PATH:RELATIVE_PATH,${CMAKE_BINARY_DIR},$<TARGET_FILE_DIR:${target}>>\"")
  endif()
  foreach(pair IN LISTS ARGN)
    string(FIND "${pair}" "=" eq)
    string(SUBSTRING "${pair}" 0 ${eq} name)
    math(EXPR from "${eq} + 1")
    string(SUBSTRING "${pair}" ${from} -1 path)
    target_compile_definitions(${target} PRIVATE
      "${name}=::iobench::testing::in_build(\"$<PATH:RELATIVE_PATH,${path},${CMAKE_BINARY_DIR}>\")")
  endforeach()
endfunction()
