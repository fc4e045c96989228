# ctest options_reference_current: docs/options.md must be what `graphcost options-reference`
# generates from the option tables now (cmake -DGRAPHCOST=... -DCHECKED_IN=... -DGENERATED=...).
execute_process(COMMAND ${GRAPHCOST} options-reference --out ${GENERATED} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "graphcost options-reference failed (exit status ${status})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${CHECKED_IN} ${GENERATED}
                RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "docs/options.md differs from the option tables (generated: ${GENERATED}); "
                      "regenerate it with `cmake --build build --target options_doc` and commit it")
endif()
