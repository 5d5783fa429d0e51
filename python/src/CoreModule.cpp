//===- CoreModule.cpp - weave._core: bundles, argument checks, the JIT ----===//
//
// Everything of the Python package that needs no GPU and no CUDA driver:
// reading and inspecting bundles, the manifest's kernels and parameters, the
// argument values a launch binds, the checks of those values against a
// manifest, and (when Weave is built with its compiler) the in-process JIT.
// It links weave_bundle and weave_runtime_host only, so `import weave`
// works on a machine without libcuda.so.1 (CI).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "weave/ops/Collectives.h"
#include "weave/ops/FusedMatmul.h"
#include "weave/ops/Registry.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/DType.h"
#include "weave/runtime/KernelArgs.h"
#ifdef WEAVE_PYTHON_WITH_JIT
#include "weave/Compiler.h"
#endif

#include <pybind11/stl.h>

#include <cstring>

namespace py = pybind11;
using namespace weave;
using weave::python::raise;
using weave::python::unwrap;
using weave::python::withoutGil;

namespace {

py::object tmaDict(const ParamInfo &param) {
  if (param.kind != ::weave::abi::ParamKind::Tma &&
      param.kind != ::weave::abi::ParamKind::TmaTable)
    return py::none();
  py::dict tma;
  // A table holds one tensor map per member (entry r: member r's copy).
  tma["per_member"] = param.kind == ::weave::abi::ParamKind::TmaTable;
  tma["source"] = param.tma.sourceParam;
  tma["box"] = param.tma.box;
  tma["swizzle"] = param.tma.swizzleBytes;
  tma["peer_view"] = param.tma.isPeerView;
  tma["peer_offset"] = param.tma.peerOffset;
  return tma;
}

std::string kernelRepr(const KernelInfo &kernel) {
  return "<weave.KernelInfo '" + kernel.name + "' with " +
         std::to_string(userParamCount(kernel)) + " user parameters>";
}

#ifdef WEAVE_PYTHON_WITH_JIT
JitOptions jitOptions(const std::string &arch, unsigned optLevel,
                      uint64_t waitTimeoutNs, const std::string &cacheDir,
                      bool useCache) {
  JitOptions options;
  options.arch = arch;
  options.optLevel = optLevel;
  options.waitTimeoutNs = waitTimeoutNs;
  options.cacheDir = cacheDir;
  options.useCache = useCache;
  return options;
}
#endif

} // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "Weave bundles, manifests, argument checks and the JIT (no CUDA)";

  py::class_<ParamInfo>(m, "ParamInfo",
                        "One kernel parameter of a manifest, in ABI order")
      .def_property_readonly(
          "kind", [](const ParamInfo &p) { return paramKindName(p.kind); },
          "buffer, symmetric, semaphore, scalar, rank, team_size, "
          "peer_bases or tma")
      .def_readonly("name", &ParamInfo::name)
      .def_readonly("dtype", &ParamInfo::dtype)
      .def_readonly("shape", &ParamInfo::shape)
      .def_property_readonly(
          "ranges",
          [](const ParamInfo &p) {
            std::vector<std::pair<int64_t, int64_t>> ranges;
            for (const DimRange &r : p.ranges)
              ranges.emplace_back(r.lo, r.hi);
            return ranges;
          },
          "[(lo, hi)] per dimension the launch sizes may take (a kernel "
          "variant's); empty: any; hi = 2**63 - 1: no upper bound")
      .def_readonly("semaphore_count", &ParamInfo::semaphoreCount)
      .def_property_readonly("tma", &tmaDict,
                             "for a tma parameter: source, box (innermost "
                             "first), swizzle, peer_view, peer_offset")
      .def("__repr__", [](const ParamInfo &p) {
        std::string shape;
        for (int64_t d : p.shape)
          shape += (shape.empty() ? "" : "x") + std::to_string(d);
        return "<weave.ParamInfo " + std::string(paramKindName(p.kind)) +
               " '" + p.name + "' " + p.dtype +
               (shape.empty() ? "" : " " + shape) + ">";
      });

  py::class_<KernelInfo>(m, "KernelInfo", "One kernel of a bundle's manifest")
      .def_readonly("name", &KernelInfo::name)
      .def_readonly("grid", &KernelInfo::grid,
                    "grid[0] == 0: a persistent grid, sized at launch")
      .def_readonly("block", &KernelInfo::block)
      .def_readonly("cluster", &KernelInfo::cluster)
      .def_readonly("dynamic_smem_bytes", &KernelInfo::dynamicSmemBytes)
      .def_readonly("team_size", &KernelInfo::teamSize,
                    "the team size it was compiled for; 0: any")
      .def_readonly("compute_capability", &KernelInfo::computeCapability)
      .def_readonly("variant_of", &KernelInfo::variantOf,
                    "the name this kernel is a variant of (launched by that "
                    "name, chosen by its ranges); '' for none")
      .def_readonly("function", &KernelInfo::function,
                    "the cubin function this kernel launches, which other "
                    "kernels (variants of one configuration) may share; '' "
                    "for the function named `name`")
      .def_property_readonly("persistent_grid", &KernelInfo::persistentGrid)
      .def_readonly("params", &KernelInfo::params,
                    "every parameter, the ones the runtime fills included")
      .def_property_readonly(
          "user_params",
          [](const KernelInfo &k) {
            return std::vector<ParamInfo>(k.params.begin(),
                                          k.params.begin() + userParamCount(k));
          },
          "the parameters a caller binds, in order")
      .def("__repr__", &kernelRepr);

  py::class_<Bundle>(m, "Bundle", "A cubin and its manifest")
      .def_static(
          "load", [](const std::string &path) {
            return unwrap(readBundleFile(path));
          },
          py::arg("path"), "reads and verifies a .wbundle file")
      .def_static(
          "from_bytes",
          [](py::bytes data) {
            std::string bytes = data;
            return unwrap(parseBundle(
                reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
          },
          py::arg("data"), "parses and verifies a bundle image")
      .def("to_bytes",
           [](const Bundle &b) {
             std::vector<uint8_t> bytes = serializeBundle(b);
             return py::bytes(reinterpret_cast<const char *>(bytes.data()),
                              bytes.size());
           })
      .def(
          "save",
          [](const Bundle &b, const std::string &path) {
            unwrap(writeBundleFile(path, b));
          },
          py::arg("path"))
      .def_readonly("arch", &Bundle::arch)
      .def_readonly("producer", &Bundle::producer)
      .def_readonly("kernels", &Bundle::kernels)
      .def_property_readonly("cubin_bytes",
                             [](const Bundle &b) { return b.cubin.size(); })
      .def_property_readonly("manifest", &printManifest,
                             "the manifest text (docs/BUNDLE.md)")
      .def(
          "kernel",
          [](const Bundle &b, const std::string &name) {
            if (const KernelInfo *k = findKernel(b, name))
              return *k;
            std::string names;
            for (const KernelInfo &k : b.kernels)
              names += (names.empty() ? "" : ", ") + k.name;
            weave::python::raise(Error(ErrorCode::NotFound,
                                       "no kernel '" + name +
                                           "' in the bundle (it has: " + names +
                                           ")"));
          },
          py::arg("name"))
      .def("__repr__", [](const Bundle &b) {
        return "<weave.Bundle " + b.arch + ", " +
               std::to_string(b.kernels.size()) + " kernel(s)>";
      });

  // The values a launch binds (KernelArgs.h). weave._cuda's heap returns the
  // symmetric ones; the package's launch wrapper builds the rest from
  // tensors.
  py::class_<SymmetricBuffer>(m, "SymmetricBuffer")
      .def_readonly("heap_id", &SymmetricBuffer::heapId)
      .def_readonly("offset", &SymmetricBuffer::offset)
      .def_readonly("bytes", &SymmetricBuffer::bytes)
      .def_readonly("dtype", &SymmetricBuffer::dtype)
      .def_readonly("shape", &SymmetricBuffer::shape);
  py::class_<SemaphoreArray>(m, "SemaphoreArray")
      .def_readonly("heap_id", &SemaphoreArray::heapId)
      .def_readonly("offset", &SemaphoreArray::offset)
      .def_readonly("count", &SemaphoreArray::count);
  py::class_<DeviceBuffers>(m, "DeviceBuffers",
                            "plain device buffers, one pointer per local "
                            "team member")
      .def(py::init([](std::vector<uint64_t> pointers, std::string dtype,
                       std::vector<int64_t> shape, uint64_t bytes) {
             DeviceBuffers b;
             b.pointers = std::move(pointers);
             b.dtype = std::move(dtype);
             b.shape = std::move(shape);
             b.bytes = bytes;
             return b;
           }),
           py::arg("pointers"), py::arg("dtype"), py::arg("shape"),
           py::arg("bytes"))
      .def_readonly("pointers", &DeviceBuffers::pointers)
      .def_readonly("dtype", &DeviceBuffers::dtype)
      .def_readonly("shape", &DeviceBuffers::shape)
      .def_readonly("bytes", &DeviceBuffers::bytes);
  py::class_<ScalarValue>(m, "ScalarValue")
      .def_static("i32", &ScalarValue::i32)
      .def_static("u32", &ScalarValue::u32)
      .def_static("i64", &ScalarValue::i64)
      .def_static("f32", &ScalarValue::f32)
      .def_static("f64", &ScalarValue::f64)
      .def_static(
          "of",
          [](const std::string &dtype, py::object value) {
            const DTypeTraits &t = traitsOf(unwrap(parseDType(dtype)));
            if (t.bytes != 4 && t.bytes != 8)
              raise(Error(ErrorCode::InvalidArgument,
                          "no scalar of dtype " + dtype + " (scalars are " +
                              dtypeNames([](const DTypeTraits &s) {
                                return s.bytes == 4 || s.bytes == 8;
                              }) +
                              ")"));
            ScalarValue scalar{t.name, 0};
            if (t.kind == DTypeKind::Float && t.bytes == 4) {
              float f = static_cast<float>(py::float_(value).cast<double>());
              uint32_t b;
              std::memcpy(&b, &f, 4);
              scalar.bits = b;
            } else if (t.kind == DTypeKind::Float) {
              double d = py::float_(value).cast<double>();
              std::memcpy(&scalar.bits, &d, 8);
            } else {
              // Two's complement, cut to the width (as i32 and u32 do).
              // (int() of a float truncates, as the binding always did.)
              auto v = static_cast<uint64_t>(py::int_(value).cast<int64_t>());
              scalar.bits = t.bytes == 4 ? uint64_t(uint32_t(v)) : v;
            }
            return scalar;
          },
          py::arg("dtype"), py::arg("value"),
          "a scalar of the dtype named (the dtype table: 4- and 8-byte "
          "floats from float(value), integers from int(value))")
      .def_readonly("dtype", &ScalarValue::dtype)
      .def_readonly("bits", &ScalarValue::bits);

  m.def(
      "check_args",
      [](const KernelInfo &kernel, const std::vector<KernelArg> &args,
         uint64_t heapId, size_t localCount, uint32_t teamSize) {
        BindingTarget target;
        target.heapId = heapId;
        target.localCount = localCount;
        target.teamSize = teamSize;
        unwrap(checkKernelArgs(kernel, args, target));
      },
      py::arg("kernel"), py::arg("args"), py::arg("heap_id"),
      py::arg("local_count"), py::arg("team_size"),
      "the checks a launch makes before anything runs (count, kind, dtype, "
      "shape, alignment, heap); raises WeaveError naming the parameter");
  m.def("dtype_bytes", &dtypeBytes, py::arg("dtype"));
  // The dtype table (weave/runtime/DType.h), one dict per dtype in table
  // order: what weave.runtime needs of a dtype comes from here.
  m.def(
      "dtypes",
      [] {
        py::list rows;
        for (const DTypeTraits &t : kDTypeTable) {
          py::dict row;
          row["name"] = t.name;
          row["bytes"] = t.bytes;
          row["kind"] = t.kind == DTypeKind::Float       ? "float"
                        : t.kind == DTypeKind::SignedInt ? "int"
                                                         : "uint";
          row["torch"] = t.torchName ? py::object(py::str(t.torchName))
                                     : py::object(py::none());
          row["dlpack_code"] = static_cast<int>(t.dlpack);
          row["tma"] = t.tma != TmaDataType::None;
          row["matmul_operand"] = t.matmulOperand;
          row["reduces"] = t.collectives == CollectiveUse::MoveAndReduce;
          row["collectives"] = t.collectives != CollectiveUse::None;
          rows.append(row);
        }
        return rows;
      },
      "the dtype table: name, bytes, kind (float/int/uint), torch name, "
      "DLPack type code and what takes it");
  m.def(
      "parse_dtype",
      [](const std::string &name) {
        return dtypeName(unwrap(parseDType(name)));
      },
      py::arg("name"),
      "the name back if it names a dtype; raises WeaveError (unknown dtype) "
      "otherwise");

  m.def(
      "op_instance",
      [](const std::string &op, uint32_t teamSize, const std::string &dtype,
         int64_t count, const std::string &algorithm) {
        ops::KernelInstance value =
            unwrap(ops::opInstance(op, teamSize, dtype, count, algorithm));
        return py::make_tuple(value.key(), value.kernelName,
                              unwrap(value.source()));
      },
      py::arg("op"), py::arg("team_size"), py::arg("dtype"), py::arg("count"),
      py::arg("algorithm") = "auto",
      "(key, kernel name, source) of the kernel a ready-made op runs: what "
      "weave.compile_op compiles ahead of time");
  m.def(
      "op_specs",
      [] {
        // weave::ops' registry (weave/ops/Registry.h), one dict per op:
        // weave.ops reads it instead of spelling op names.
        static const char *kExtents[] = {"count", "team_times_count", "team"};
        static const char *kOwned[] = {"semaphores", "symmetric_workspace",
                                       "local_workspace"};
        py::list specs;
        for (const ops::OpSpec &op : ops::opRegistry()) {
          py::list roles, algorithms, choices;
          for (const ops::RoleSpec &r : op.roles)
            roles.append(py::dict(
                py::arg("param") = r.param, py::arg("written") = r.written,
                py::arg("member_block") = r.memberBlock,
                py::arg("extent") = kExtents[int(r.extent)]));
          for (const ops::AlgorithmSpec &a : op.algorithms) {
            py::list owns;
            for (const ops::OwnedParam &o : a.owns)
              owns.append(py::make_tuple(o.param, kOwned[int(o.kind)]));
            // The dtypes the algorithm takes: its own where fewer than the
            // op's (AlgorithmSpec::dtypes), else the op's.
            py::list dtypes;
            for (const std::string &t : op.dtypes)
              if (op.takesDtype(t, a))
                dtypes.append(t);
            algorithms.append(py::dict(
                py::arg("name") = a.name, py::arg("template") = a.templateName,
                py::arg("kernel") = a.kernel, py::arg("per_team") = a.perTeam,
                py::arg("offered") = a.offered,
                py::arg("rank_order") = a.rankOrder, py::arg("owns") = owns,
                py::arg("dtypes") = dtypes));
          }
          for (const ops::ChoiceRow &c : op.choices)
            choices.append(py::make_tuple(c.minTeam, c.maxTeam, c.maxBytes,
                                          c.algorithm));
          specs.append(py::dict(
              py::arg("name") = op.name, py::arg("title") = op.title,
              py::arg("family") = op.family == ops::OpFamily::Collective
                                      ? "collective"
                                      : "fused_matmul",
              py::arg("count_name") = op.countName,
              py::arg("reduces") = op.reduces, py::arg("dtypes") = op.dtypes,
              py::arg("roles") = roles, py::arg("algorithms") = algorithms,
              py::arg("choices") = choices));
        }
        return specs;
      },
      "weave::ops' op registry: one dict per op (name, title, family, "
      "count_name, reduces, dtypes, roles, algorithms, choices)");
  m.def(
      "matmul_op_instance",
      [](const std::string &op, uint32_t teamSize, const std::string &dtype,
         int64_t mShard, int64_t k, int64_t n, const std::string &algorithm) {
        ops::KernelInstance value = unwrap(ops::matmulOpInstance(
            op, teamSize, dtype, {mShard, k, n}, algorithm));
        return py::make_tuple(value.key(), value.kernelName,
                              unwrap(value.source()));
      },
      py::arg("op"), py::arg("team_size"), py::arg("dtype"),
      py::arg("m_shard"), py::arg("k"), py::arg("n"),
      py::arg("algorithm") = "auto",
      "(key, kernel name, source) of the kernel a fused matmul op "
      "(all_gather_matmul, matmul_reduce_scatter) runs");
  m.def(
      "matmul_op_algorithm",
      [](const std::string &op, uint32_t teamSize, const std::string &dtype,
         int64_t mShard, int64_t k, int64_t n, const std::string &algorithm) {
        return ops::matmulOpAlgorithm(op, teamSize, dtype, {mShard, k, n},
                                      algorithm);
      },
      py::arg("op"), py::arg("team_size"), py::arg("dtype"),
      py::arg("m_shard"), py::arg("k"), py::arg("n"),
      py::arg("algorithm") = "auto",
      "the algorithm a fused matmul op runs at this shape: \"auto\" "
      "resolved by the op's rule, any other name as it is (an op on a "
      "loopback team keeps the GEMM + RS's copy engines where this says "
      "\"scatter\")");
  m.def(
      "matmul_op_companions",
      [](const std::string &op, uint32_t teamSize, const std::string &dtype,
         int64_t mShard, int64_t k, int64_t n, const std::string &algorithm) {
        py::list out;
        for (const ops::CompanionOp &c : unwrap(ops::matmulOpCompanions(
                 op, teamSize, dtype, {mShard, k, n}, algorithm)))
          out.append(py::make_tuple(c.op, c.count, c.algorithm));
        return out;
      },
      py::arg("op"), py::arg("team_size"), py::arg("dtype"),
      py::arg("m_shard"), py::arg("k"), py::arg("n"),
      py::arg("algorithm") = "auto",
      "[(op, count, algorithm)] of the other ops whose kernels a fused "
      "matmul op runs at this shape (the all-gather matmul's \"gather\": "
      "its all-gather, \"narrow\" beside a matmul of streamed b; "
      "the GEMM + reduce-scatter's \"scatter\": its reduce-scatter), for "
      "op_instance");

  m.attr("version") = WEAVE_VERSION; // project(weave VERSION ...)
#ifdef WEAVE_PYTHON_WITH_JIT
  m.attr("has_compiler") = true;
  m.def(
      "compile",
      [](const std::string &source, const std::string &name,
         const std::string &arch, unsigned optLevel, uint64_t waitTimeoutNs,
         const std::string &cacheDir, bool useCache) {
        Compiler compiler(
            jitOptions(arch, optLevel, waitTimeoutNs, cacheDir, useCache));
        Expected<Bundle> bundle =
            withoutGil([&] { return compiler.compileString(source, name); });
        return py::make_tuple(unwrap(std::move(bundle)),
                              compiler.lastCompileHitCache());
      },
      py::arg("source"), py::arg("name"), py::arg("arch"),
      py::arg("opt_level"), py::arg("wait_timeout_ns"), py::arg("cache_dir"),
      py::arg("use_cache"),
      "compiles kernel source to (Bundle, hit_cache); diagnostics name "
      "`name`");
  m.def(
      "check_protocol",
      [](const std::string &source, const std::string &name,
         std::vector<int64_t> teamSizes, int64_t launches,
         std::vector<int64_t> grids, unsigned schedules, uint64_t seed,
         std::map<std::string, std::vector<int64_t>> shapes,
         std::map<std::string, std::vector<int64_t>> fills,
         std::map<std::string, int64_t> args, bool hostIO) {
        CheckOptions check;
        if (!teamSizes.empty())
          check.teamSizes = std::move(teamSizes);
        check.launches = launches;
        if (!grids.empty())
          check.persistentGrids = std::move(grids);
        check.schedules = schedules;
        check.seed = seed;
        check.shapes = std::move(shapes);
        check.fills = std::move(fills);
        check.args = std::move(args);
        check.hostIO = hostIO;
        Compiler compiler(jitOptions("sm_90a", 3, 0, "", false));
        Expected<std::string> summary = [&] {
          py::gil_scoped_release release;
          return compiler.checkProtocolString(source, check, name);
        }();
        return unwrap(std::move(summary));
      },
      py::arg("source"), py::arg("name"), py::arg("team_sizes"),
      py::arg("launches"), py::arg("grids"), py::arg("schedules"),
      py::arg("seed"), py::arg("shapes"), py::arg("fills"), py::arg("args"),
      py::arg("host_io"),
      "weavec --check-protocol on kernel source: the one-line summary, or "
      "a CompileError with the located findings");
  m.def("default_cache_dir", &Compiler::defaultCacheDir);
#else
  m.attr("has_compiler") = false;
#endif
}
