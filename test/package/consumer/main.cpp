//===- main.cpp - a program built against an installed Weave ---------------===//
//
//   weave-consumer [bundle]
//
// Gets the one-shot all-reduce (the installed template, JIT-compiled where
// the package has Weave::jit, else the bundle given on the command line),
// then runs it on a loopback team of 2 members on GPU 0 and checks that
// every member holds the sum of the members' inputs. Without a GPU (no
// driver, the driver's stub library, no device) it says so and exits 0:
// the point is that the package builds, links and runs. Exits 1 on any
// failure. With WEAVE_REQUIRE_GPU=1 a missing GPU is a failure too.
//
//===----------------------------------------------------------------------===//

#include "weave/runtime.h"
#ifdef WEAVE_CONSUMER_HAVE_JIT
#include "weave/Compiler.h"
#endif

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace weave;

static_assert(abi::kAbiVersion == WEAVE_PACKAGE_ABI_VERSION,
              "WeaveConfig.cmake's WEAVE_ABI_VERSION differs from the headers'");

namespace {

constexpr int64_t kElements = 1001;
constexpr uint32_t kMembers = 2;
const char *kKernel = "one_shot_all_reduce";

int fail(const Error &error) {
  std::fprintf(stderr, "weave-consumer: error: %s\n",
               error.toString().c_str());
  return 1;
}

#ifdef WEAVE_CONSUMER_HAVE_JIT
/// The installed all-reduce template with @N@ = kElements, JIT-compiled.
Expected<Bundle> compileTemplate() {
  std::string path =
      std::string(WEAVE_TEMPLATE_DIR) + "/all_reduce/one_shot_all_reduce.mlir.in";
  std::ifstream in(path);
  if (!in)
    return Error(ErrorCode::NotFound, "no template at " + path);
  std::stringstream text;
  text << in.rdbuf();
  std::string source = text.str();
  for (size_t at; (at = source.find("@N@")) != std::string::npos;)
    source.replace(at, 3, std::to_string(kElements));
  JitOptions options;
  options.useCache = false;
  Compiler compiler(options);
  return compiler.compileString(source, path);
}
#endif

Status check(bool condition, const std::string &what) {
  if (condition)
    return ok();
  return Error(ErrorCode::InvalidArgument, what);
}

/// Runs the all-reduce on a loopback team; member r's input is r + 1 in
/// every element, so every output element must be D (D + 1) / 2.
Status runOnGpu(Bundle bundle) {
  WEAVE_ASSIGN_OR_RETURN(Team team, Team::createLoopback(kMembers));
  WEAVE_ASSIGN_OR_RETURN(SymmetricHeap heap,
                         SymmetricHeap::create(team, 1 << 20));
  WEAVE_ASSIGN_OR_RETURN(SymmetricBuffer input,
                         heap.allocateTensor("f32", {kElements}));
  WEAVE_ASSIGN_OR_RETURN(SemaphoreArray barrier, heap.allocateSemaphores(2));
  WEAVE_ASSIGN_OR_RETURN(Program program, Program::load(team, std::move(bundle)));
  WEAVE_ASSIGN_OR_RETURN(Kernel kernel, Kernel::get(program, kKernel));

  DeviceBuffers output{{}, "f32", {kElements}, kElements * sizeof(float)};
  std::vector<CUstream> streams(team.localCount());
  for (size_t i = 0; i < team.localCount(); ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    CUdeviceptr out = 0;
    WEAVE_CU_TRY(cuMemAlloc(&out, output.bytes), "allocating an output");
    output.pointers.push_back(out);
    WEAVE_CU_TRY(cuStreamCreate(&streams[i], CU_STREAM_NON_BLOCKING),
                 "creating a stream");
    std::vector<float> mine(kElements, float(team.rankOf(i) + 1));
    WEAVE_CU_TRY(cuMemcpyHtoD(heap.localPointer(input, i), mine.data(),
                              output.bytes),
                 "writing an input");
  }
  WEAVE_TRY(kernel.launch(heap, {input, output, barrier}, streams));
  WEAVE_TRY(team.synchronize());
  float expected = float(kMembers * (kMembers + 1) / 2);
  size_t wrong = 0;
  for (size_t i = 0; i < team.localCount(); ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    std::vector<float> got(kElements);
    WEAVE_CU_TRY(cuMemcpyDtoH(got.data(), output.pointers[i], output.bytes),
                 "reading an output");
    for (float x : got)
      wrong += x != expected;
    cuMemFree(output.pointers[i]);
    cuStreamDestroy(streams[i]);
  }
  return check(wrong == 0, std::to_string(wrong) + " wrong output elements");
}

} // namespace

int main(int argc, char **argv) {
  std::printf("weave-consumer: Weave ABI version %u, templates in %s\n",
              abi::kAbiVersion, WEAVE_TEMPLATE_DIR);
#ifdef WEAVE_CONSUMER_HAVE_JIT
  Expected<Bundle> bundle = compileTemplate();
  if (!bundle)
    return fail(bundle.error());
  std::printf("weave-consumer: JIT-compiled %s (%zu bytes of cubin)\n", kKernel,
              bundle->cubin.size());
#else
  if (argc < 2) {
    std::fprintf(stderr, "usage: weave-consumer <bundle> (this package has "
                         "no JIT: pass a bundle compiled by weavec)\n");
    return 1;
  }
  Expected<Bundle> bundle = readBundleFile(argv[1]);
  if (!bundle)
    return fail(bundle.error());
  std::printf("weave-consumer: read %s\n", argv[1]);
#endif
  (void)argc;
  (void)argv;
  const KernelInfo *info = findKernel(*bundle, kKernel);
  if (!info || info->params.size() < 3 ||
      info->params[0].shape != std::vector<int64_t>{kElements})
    return fail(Error(ErrorCode::InvalidBundle,
                      std::string("the bundle has no ") + kKernel + " over " +
                          std::to_string(kElements) + " elements"));

  Expected<int> devices = deviceCount();
  if (!devices || *devices == 0) {
    // The GPU suite sets WEAVE_REQUIRE_GPU=1: there a skip is a failure.
    const char *require = std::getenv("WEAVE_REQUIRE_GPU");
    if (require && std::string(require) == "1")
      return fail(devices ? Error(ErrorCode::NotFound, "no CUDA device")
                          : devices.error());
    std::printf("weave-consumer: SKIP: no CUDA device (%s); built, linked and "
                "ran against the installed package, nothing launched\n",
                devices ? "0 devices" : devices.error().toString().c_str());
    return 0;
  }
  if (Status s = runOnGpu(std::move(*bundle)); !s)
    return fail(s.error());
  std::printf("weave-consumer: PASS: %s on a loopback team of %u members\n",
              kKernel, kMembers);
  return 0;
}
