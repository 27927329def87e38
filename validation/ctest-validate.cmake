# CTest entry validate_quick (CMakeLists.txt): `warplab validate --quick --max-mape T` with T from
# validation/threshold.txt, against the committed H100 data. Without the data file the test is
# skipped with a one-line reason (CTest's SKIP_REGULAR_EXPRESSION matches "VALIDATE-SKIP").
#   cmake -DWARPLAB=<warplab binary> -DROOT=<source dir> -P validation/ctest-validate.cmake
set(data "${ROOT}/validation/data/h100.json")
if(NOT EXISTS "${data}")
  message("VALIDATE-SKIP: no GPU data (${data} not committed yet); nothing to compare against")
  return()
endif()
file(STRINGS "${ROOT}/validation/threshold.txt" lines REGEX "^[ \t]*[0-9.]+[ \t]*$")
list(LENGTH lines n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "${ROOT}/validation/threshold.txt: expected exactly one number line")
endif()
string(STRIP "${lines}" threshold)
execute_process(COMMAND "${WARPLAB}" validate --quick --config h100-sxm --max-mape ${threshold}
                WORKING_DIRECTORY "${ROOT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "warplab validate --quick --max-mape ${threshold} exited ${rc}")
endif()
