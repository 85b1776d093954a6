# iobench_add_test(NAME <name> COMMAND <program> [<arg>...]
#                  [EXPECT <expr>...] [BASELINE <file>] [EXACT_COUNTS]
#                  [COUNT_TOLERANCE <n>] [WORKING_DIRECTORY <dir>] [OPTIONS <flag>...])
#
# Adds the CTest test <name>: `iobench trace --name <name> ... -- <program> <arg>...`, which
# passes when every EXPECT holds (`write_calls==1000`) and no count rose above the BASELINE
# (a file `iobench trace --name <name> --save-baseline <file> -- ...` wrote; a relative path
# is under the calling CMakeLists.txt's folder); a count below it passes unless EXACT_COUNTS
# (docs/ci.md). <program> may be a target of the project. It runs in WORKING_DIRECTORY
# (default: the current binary directory), where files it writes are counted relative to.
# OPTIONS are more `iobench trace` flags (--trace-all, --timeout 60). Its JUnit file is
# ${IOBENCH_JUNIT_DIR}/<name>.xml (default ${CMAKE_BINARY_DIR}/iobench-junit), where a CI
# job collects it, and is attached to the test's CDash submission (ATTACHED_FILES).
# Installed with the package (iobenchConfig.cmake includes it) and used in-tree alike.
function(iobench_add_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "EXACT_COUNTS"
                        "NAME;BASELINE;COUNT_TOLERANCE;WORKING_DIRECTORY"
                        "COMMAND;EXPECT;OPTIONS")
  if(NOT arg_NAME OR NOT arg_COMMAND)
    message(FATAL_ERROR "iobench_add_test: NAME and COMMAND are required")
  endif()
  if(NOT arg_EXPECT AND NOT arg_BASELINE)
    message(FATAL_ERROR "iobench_add_test(${arg_NAME}): nothing to check: give EXPECT or BASELINE")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "iobench_add_test(${arg_NAME}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT IOBENCH_JUNIT_DIR)
    set(IOBENCH_JUNIT_DIR ${CMAKE_BINARY_DIR}/iobench-junit)
  endif()
  # iobench checks every output's folder before it runs (exit 2): it must exist.
  file(MAKE_DIRECTORY ${IOBENCH_JUNIT_DIR})
  set(junit ${IOBENCH_JUNIT_DIR}/${arg_NAME}.xml)

  list(POP_FRONT arg_COMMAND program)
  if(TARGET ${program})
    set(program $<TARGET_FILE:${program}>)
  endif()
  set(args trace --name ${arg_NAME} --export-junit ${junit})
  foreach(expect IN LISTS arg_EXPECT)
    list(APPEND args --expect ${expect})
  endforeach()
  if(arg_BASELINE)
    cmake_path(ABSOLUTE_PATH arg_BASELINE BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND args --baseline ${arg_BASELINE})
  endif()
  if(arg_EXACT_COUNTS)
    list(APPEND args --exact-counts)
  endif()
  if(DEFINED arg_COUNT_TOLERANCE)
    list(APPEND args --count-tolerance ${arg_COUNT_TOLERANCE})
  endif()
  list(APPEND args ${arg_OPTIONS} -- ${program} ${arg_COMMAND})
  if(NOT arg_WORKING_DIRECTORY)
    set(arg_WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  add_test(NAME ${arg_NAME} COMMAND $<TARGET_FILE:iobench::cli> ${args}
           WORKING_DIRECTORY ${arg_WORKING_DIRECTORY})
  set_tests_properties(${arg_NAME} PROPERTIES ATTACHED_FILES ${junit} LABELS iobench)
endfunction()
