//===- OpsRegistryTest.cpp - The op registry is whole and true ------------===//
//
// Every op of weave::ops' registry (weave/ops/Registry.h) must be usable
// everywhere the registry is read; these tests fail when an entry misses a
// piece: a template that is not embedded or does not define its kernel, a
// template no entry runs, a dtype list that disagrees with instanceFor, an
// algorithm the choice table names but the op does not offer, a choice
// table with a hole, or (with the compiler) owned parameters that are not
// what the kernel's manifest makes the op own. weave-ops is checked by
// test/Tools/weave-ops/registry.mlir, the checker in examples/ by
// test/unit/examples, Python by python/tests/test_core.py.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "weave/ops/Collectives.h"
#include "weave/ops/FusedMatmul.h"
#include "weave/ops/Registry.h"
#ifdef WEAVE_OPS_TEST_JIT
#include "weave/ops/JitSource.h"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace weave;
using namespace weave::ops;

namespace {

/// A shape every fused op takes (whole row tiles, 16-byte rows).
constexpr MatmulShape kShape{128, 256, 320};

/// The instance of `algorithm` of `op` (a collective: forced by name).
Expected<KernelInstance> instanceOf(const OpSpec &op,
                                    const AlgorithmSpec &algorithm,
                                    uint32_t teamSize, const std::string &dtype) {
  if (op.family == OpFamily::FusedMatmul)
    return matmulOpInstance(op.name, teamSize, dtype, kShape, algorithm.name);
  return opInstance(op.name, teamSize, dtype, 1001, algorithm.name);
}

TEST(OpsRegistry, NamesAreUniqueAndFound) {
  std::set<std::string> ops, kernels;
  for (const OpSpec &op : opRegistry()) {
    SCOPED_TRACE(op.name);
    EXPECT_TRUE(ops.insert(op.name).second) << "two ops named " << op.name;
    EXPECT_EQ(findOp(op.name), &op);
    EXPECT_FALSE(op.title.empty());
    EXPECT_FALSE(op.dtypes.empty());
    EXPECT_FALSE(op.algorithms.empty());
    EXPECT_FALSE(op.offeredNames().empty()) << "no algorithm is offered";
    std::set<std::string> params, algorithms;
    for (const RoleSpec &role : op.roles)
      EXPECT_TRUE(params.insert(role.param).second) << role.param;
    EXPECT_TRUE(std::any_of(op.roles.begin(), op.roles.end(),
                            [](const RoleSpec &r) { return r.written; }))
        << "no role is written";
    for (const AlgorithmSpec &a : op.algorithms) {
      EXPECT_TRUE(algorithms.insert(a.name).second) << a.name;
      EXPECT_NE(a.name, "auto");
      // A kernel names one registered kernel: the checker and the bench
      // find op and algorithm from it. An algorithm that launches another
      // algorithm's kernel (kernelOf: of another op or its own) finds that
      // entry, of the same template.
      if (a.kernelOf.empty()) {
        EXPECT_TRUE(kernels.insert(a.kernel).second) << a.kernel;
        EXPECT_EQ(findRegisteredKernel(a.kernel).algorithm, &a);
      } else {
        RegisteredKernel owner = findRegisteredKernel(a.kernel);
        ASSERT_NE(owner.op, nullptr) << a.kernel;
        EXPECT_EQ(owner.op->name, a.kernelOf);
        EXPECT_NE(owner.algorithm, &a);
        EXPECT_EQ(owner.algorithm->templateName, a.templateName);
        EXPECT_EQ(owner.algorithm->perTeam, a.perTeam);
      }
      for (const OwnedParam &owned : a.owns)
        EXPECT_FALSE(params.count(owned.param))
            << owned.param << " is both a role and owned";
    }
    if (op.family == OpFamily::Collective) {
      // The checker and Collectives.run size the call from `input`.
      ASSERT_FALSE(op.roles.empty());
      EXPECT_EQ(op.roles[0].param, "input");
      EXPECT_FALSE(op.countName.empty());
      EXPECT_EQ(op.matmulInstance, nullptr);
    } else {
      EXPECT_NE(op.matmulInstance, nullptr);
      EXPECT_NE(op.matmulParamShapes, nullptr);
      EXPECT_TRUE(op.choices.empty());
    }
  }
  EXPECT_EQ(findOp("broadcast"), nullptr);
  EXPECT_EQ(findRegisteredKernel("broadcast").op, nullptr);
  EXPECT_EQ(opNames(OpFamily::FusedMatmul),
            "all_gather_matmul, matmul_reduce_scatter");
}

TEST(OpsRegistry, EveryAlgorithmHasItsTemplateAndEveryTemplateAnAlgorithm) {
  std::vector<std::string> embedded = templateNames();
  std::set<std::string> used;
  for (const RegisteredKernel &k : registeredKernels()) {
    SCOPED_TRACE(k.algorithm->templateName);
    used.insert(k.algorithm->templateName);
    Expected<std::string> text = templateText(k.algorithm->templateName);
    EXPECT_TRUE(text) << text.error().toString();
    if (!text)
      continue;
    // The template defines the kernel the entry launches (under its name,
    // or under @KERNEL@, which the instance fills with it or, for its
    // variants, with theirs).
    EXPECT_TRUE(text->find("gpu.func @" + k.algorithm->kernel + "(") !=
                    std::string::npos ||
                text->find("gpu.func @@KERNEL@(") != std::string::npos);
    // The template folder is the stem's (ops/templates/<folder>/<kernel>).
    EXPECT_EQ(k.algorithm->templateName.substr(
                  k.algorithm->templateName.find('/') + 1),
              k.algorithm->kernel);
  }
  for (const std::string &name : embedded)
    EXPECT_TRUE(used.count(name))
        << "template ops/templates/" << name
        << ".mlir.in is run by no entry of the op registry "
           "(ops/lib/Registry.cpp)";
}

TEST(OpsRegistry, DtypesAreWhatInstanceForTakes) {
  for (const OpSpec &op : opRegistry())
    for (const AlgorithmSpec &a : op.algorithms) {
      if (!a.offered)
        continue;
      for (const char *dtype : {"f16", "bf16", "f32", "f64", "i32"}) {
        SCOPED_TRACE(op.name + " " + a.name + " " + dtype);
        Expected<KernelInstance> instance = instanceOf(op, a, 4, dtype);
        EXPECT_EQ(bool(instance), op.takesDtype(dtype, a))
            << (instance ? "accepted" : instance.error().toString());
        if (!instance)
          continue;
        EXPECT_EQ(instance->templateName, a.templateName);
        EXPECT_EQ(instance->kernelName, a.kernel);
        EXPECT_EQ(instance->teamSize, a.perTeam ? 4u : 0u);
        Expected<std::string> source = instance->source();
        EXPECT_TRUE(source) << source.error().toString();
      }
    }
}

TEST(OpsRegistry, ExampleVariantsAreNotOffered) {
  for (const RegisteredKernel &k : registeredKernels()) {
    if (k.algorithm->offered || k.op->family != OpFamily::Collective)
      continue;
    SCOPED_TRACE(k.algorithm->kernel);
    Expected<KernelInstance> instance =
        opInstance(k.op->name, 2, "f32", 8, k.algorithm->name);
    ASSERT_FALSE(instance);
    EXPECT_NE(instance.error().message().find(k.op->offeredNames()),
              std::string::npos);
  }
}

TEST(OpsRegistry, ChoiceTablesNameOfferedAlgorithmsAndHaveNoHole) {
  for (const OpSpec &op : opRegistry()) {
    if (op.family != OpFamily::Collective)
      continue;
    SCOPED_TRACE(op.name);
    ASSERT_FALSE(op.choices.empty());
    for (const ChoiceRow &row : op.choices) {
      const AlgorithmSpec *a = op.algorithm(row.algorithm);
      ASSERT_NE(a, nullptr) << row.algorithm;
      EXPECT_TRUE(a->offered) << row.algorithm;
      EXPECT_LE(row.minTeam, row.maxTeam);
    }
    // Any team size up to 1024 and any size has a row; team size 0 (an
    // instance for any team) only where that row's kernel serves any.
    for (uint32_t d = 1; d <= 1024; ++d)
      EXPECT_FALSE(chooseAlgorithm(op.name, d, "bf16", int64_t(1) << 40).empty())
          << "D = " << d;
    std::string any = chooseAlgorithm(op.name, 0, "bf16", 8);
    if (!any.empty() && !op.algorithm(any)->perTeam) {
      EXPECT_TRUE(opInstance(op.name, 0, "bf16", 8));
    }
  }
  // collectiveChoices() is the registry's rows, in registry order.
  size_t rows = 0;
  for (const OpSpec &op : opRegistry())
    rows += op.choices.size();
  EXPECT_EQ(collectiveChoices().size(), rows);
}

TEST(OpsRegistry, RolesAreWhatTheOpsBind) {
  for (const OpSpec &op : opRegistry()) {
    SCOPED_TRACE(op.name);
    std::vector<ops::detail::RoleSpec> roles = ops::detail::opRoles(op.name);
    ASSERT_EQ(roles.size(), op.roles.size());
    for (size_t r = 0; r < roles.size(); ++r)
      EXPECT_EQ(roles[r].param, op.roles[r].param);
    if (op.family == OpFamily::FusedMatmul) {
      EXPECT_FALSE(ops::detail::matmulParamShapes(op.name, 2, kShape).empty());
    }
  }
}

#ifdef WEAVE_OPS_TEST_JIT
/// The owned parameters an entry declares are exactly what planBindings
/// derives from the compiled kernel's manifest, in parameter order.
TEST(OpsRegistry, OwnedParametersAreTheManifests) {
  JitOptions options;
  options.useCache = false;
  JitSource jit(options);
  for (const RegisteredKernel &k : registeredKernels()) {
    SCOPED_TRACE(k.algorithm->kernel);
    // Another op's kernel (kernelOf): the owner's entry is checked; the
    // borrowing op binds it itself (GatherMatmulKernel), not through
    // planBindings with its roles.
    if (!k.algorithm->kernelOf.empty())
      continue;
    KernelInstance instance;
    if (k.op->family == OpFamily::FusedMatmul) {
      // An offered algorithm's own instance; the examples' variants (not
      // offered) take the values of the op's fused kernel, filled into
      // their template.
      Expected<KernelInstance> made = matmulOpInstance(
          k.op->name, 2, "bf16", kShape,
          k.algorithm->offered
              ? k.algorithm->name
              : k.op->algorithms.front().name);
      ASSERT_TRUE(made) << made.error().toString();
      instance = *made;
      instance.templateName = k.algorithm->templateName;
      instance.kernelName = k.algorithm->kernel;
    } else {
      // Every algorithm, the examples' variants too, filled as the
      // examples' build fills them.
      instance = KernelInstance{k.algorithm->templateName,
                                k.algorithm->kernel,
                                "f32",
                                k.algorithm->perTeam ? 2u : 0u,
                                1002,
                                {},
                                {}};
      if (k.algorithm->kernel == "atomic_all_reduce")
        instance.extra = {{"WIDTH", "1"},
                          {"LOAD", "memref.load"},
                          {"LOADED", ""},
                          {"VALUE", "f32"}};
    }
    Expected<Bundle> bundle = jit.bundleFor(instance);
    ASSERT_TRUE(bundle) << bundle.error().toString();
    // The kernel, or its first variant (they take the same arguments).
    const KernelInfo *kernel = findKernel(*bundle, k.algorithm->kernel);
    if (!kernel && !findVariants(*bundle, k.algorithm->kernel).empty())
      kernel = findVariants(*bundle, k.algorithm->kernel).front();
    ASSERT_NE(kernel, nullptr);
    Expected<std::vector<ops::detail::ParamBinding>> plan =
        ops::detail::planBindings(*kernel, instance.templateName, k.op->roles);
    ASSERT_TRUE(plan) << plan.error().toString();
    std::vector<OwnedParam> derived;
    for (size_t p = 0; p < plan->size(); ++p) {
      const ops::detail::ParamBinding &b = (*plan)[p];
      if (b.kind == ops::detail::ParamBinding::Role)
        continue;
      Owned kind = b.kind == ops::detail::ParamBinding::Semaphores ? Owned::Semaphores
                   : b.kind == ops::detail::ParamBinding::SymmetricWorkspace
                       ? Owned::SymmetricWorkspace
                       : Owned::LocalWorkspace;
      derived.push_back({kernel->params[p].name, kind});
    }
    ASSERT_EQ(derived.size(), k.algorithm->owns.size());
    for (size_t i = 0; i < derived.size(); ++i) {
      EXPECT_EQ(derived[i].param, k.algorithm->owns[i].param);
      EXPECT_EQ(int(derived[i].kind), int(k.algorithm->owns[i].kind))
          << derived[i].param;
    }
  }
}
#endif

} // namespace
