//===- FuzzTarget.h - The libFuzzer entry points of a fuzz target -*- C++ -*-//
//
// Each fuzz target defines LLVMFuzzerTestOneInput; it links either with
// libFuzzer (-DWEAVE_ENABLE_LIBFUZZER=ON, clang) or with MutationDriver.cpp
// (any compiler), which calls the same entry points.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_TEST_FUZZ_FUZZTARGET_H
#define WEAVE_TEST_FUZZ_FUZZTARGET_H

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/// Optional, called once before the first input.
extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif // WEAVE_TEST_FUZZ_FUZZTARGET_H
