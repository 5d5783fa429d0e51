# cmake -DIN=<template> -DOUT=<file> -DVALUES=KEY=value,KEY=value -P Substitute.cmake
# Replaces every @KEY@ of the template (sed-like, without a shell) and fails
# when a placeholder is left over.
file(READ "${IN}" text)
string(REPLACE "," ";" pairs "${VALUES}")
foreach(pair IN LISTS pairs)
  string(FIND "${pair}" "=" eq)
  string(SUBSTRING "${pair}" 0 ${eq} key)
  math(EXPR start "${eq} + 1")
  string(SUBSTRING "${pair}" ${start} -1 value)
  string(REPLACE "@${key}@" "${value}" text "${text}")
endforeach()
string(REGEX MATCH "@[A-Z_]+@" left "${text}")
if(left)
  message(FATAL_ERROR "${IN}: placeholder ${left} has no value (given: ${VALUES})")
endif()
file(WRITE "${OUT}.tmp" "${text}")
file(RENAME "${OUT}.tmp" "${OUT}")
