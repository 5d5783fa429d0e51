//===- Bindings.cpp - How an op binds its kernel's parameters -------------===//

#include "Bindings.h"

#include "weave/runtime/KernelArgs.h"

#include <algorithm>

namespace weave::ops::detail {

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text;
  for (int64_t d : shape)
    text += (text.empty() ? "" : "x") +
            (d == abi::kDynamicDim ? std::string("?") : std::to_string(d));
  return text.empty() ? "scalar" : text;
}

std::string tensorMismatch(const TensorRef &t, const std::string &dtype,
                           int64_t expected, const std::string &createdFor) {
  if (t.data == 0)
    return "null pointer";
  if (t.dtype != dtype)
    return "expected dtype " + dtype + ", got '" + t.dtype + "'";
  if (elementCount(t.shape) != expected)
    return "expected " + std::to_string(expected) +
           " elements (the op was created for " + createdFor + "), got " +
           shapeText(t.shape);
  return "";
}

std::string callCountsMismatch(size_t streams, size_t tensorLists,
                               size_t inPlaceEntries, size_t locals,
                               const std::vector<std::string> &roleNames) {
  std::string roles = std::to_string(roleNames.size());
  if (streams != locals)
    return "expected one stream per local member (" + std::to_string(locals) +
           "), got " + std::to_string(streams);
  if (tensorLists != roleNames.size()) {
    std::string names;
    for (const std::string &name : roleNames)
      names += (names.empty() ? "" : ", ") + name;
    return "expected " + roles + " tensor arguments (" + names + "), got " +
           std::to_string(tensorLists);
  }
  if (inPlaceEntries != 0 && inPlaceEntries != roleNames.size())
    return "expected " + roles + " in-place entries, got " +
           std::to_string(inPlaceEntries);
  return "";
}

std::string roleTensorsMismatch(const std::vector<TensorRef> &tensors,
                                const RoleExpectation &role, size_t locals,
                                uint64_t alignment) {
  if (tensors.size() != locals)
    return "'" + role.name + "': expected one tensor per local member (" +
           std::to_string(locals) + "), got " + std::to_string(tensors.size());
  for (size_t i = 0; i < locals; ++i) {
    const TensorRef &t = tensors[i];
    std::string where =
        "'" + role.name + "' of local member " + std::to_string(i) + ": ";
    std::string wrong =
        tensorMismatch(t, role.dtype, role.elements, role.createdFor);
    if (!wrong.empty())
      return where + wrong;
    if (t.data % alignment != 0)
      return where + "the address must be " + std::to_string(alignment) +
             "-byte aligned";
  }
  return "";
}

std::string matmulReduceScatterCallMismatch(
    const std::vector<std::vector<TensorRef>> &tensors, size_t streams,
    const std::vector<std::optional<SymmetricBuffer>> &inPlace, size_t locals,
    const std::string &dtype, int64_t d, int64_t m, int64_t k, int64_t n) {
  for (const auto &placed : inPlace)
    if (placed)
      return "no tensor of this op can be passed as a symmetric buffer";
  std::string wrong = callCountsMismatch(streams, tensors.size(),
                                         inPlace.size(), locals, {"a", "b", "c"});
  std::vector<RoleExpectation> roles{RoleExpectation::matrix("a", dtype, d * m, k),
                                     RoleExpectation::matrix("b", dtype, k, n),
                                     RoleExpectation::matrix("c", dtype, m, n)};
  for (size_t r = 0; r < roles.size() && wrong.empty(); ++r)
    wrong = roleTensorsMismatch(tensors[r], roles[r], locals, 16);
  return wrong;
}

std::string allGatherMatmulCallMismatch(
    const std::vector<std::vector<TensorRef>> &tensors, size_t streams,
    const std::vector<std::optional<SymmetricBuffer>> &inPlace, size_t locals,
    uint64_t heapId, const std::string &dtype, int64_t d, int64_t m, int64_t k,
    int64_t n) {
  std::string wrong = callCountsMismatch(streams, tensors.size(),
                                         inPlace.size(), locals, {"a", "b", "c"});
  if (!wrong.empty())
    return wrong;
  for (size_t r = 1; r < inPlace.size(); ++r)
    if (inPlace[r])
      return std::string("'") + (r == 1 ? "b" : "c") +
             "' cannot be passed as a symmetric buffer (only 'a')";
  bool placed = !inPlace.empty() && inPlace[0];
  if (placed)
    wrong = inPlaceMismatch(*inPlace[0], heapId,
                            RoleExpectation::matrix("a", dtype, d * m, k));
  // 16 bytes: the matmul's tensor maps. A placed `a` is checked above.
  std::vector<RoleExpectation> roles{
      RoleExpectation::matrix("a", dtype, d * m, k, d),
      RoleExpectation::matrix("b", dtype, k, n),
      RoleExpectation::matrix("c", dtype, d * m, n)};
  for (size_t r = placed ? 1 : 0; r < roles.size() && wrong.empty(); ++r)
    wrong = roleTensorsMismatch(tensors[r], roles[r], locals, 16);
  return wrong;
}

std::string inPlaceMismatch(const SymmetricBuffer &buffer, uint64_t heapId,
                            const RoleExpectation &role) {
  if (buffer.heapId != heapId)
    return "'" + role.name +
           "': the symmetric buffer is not in this op's symmetric memory";
  if (buffer.dtype != role.dtype)
    return "'" + role.name + "': expected dtype " + role.dtype + ", got '" +
           buffer.dtype + "'";
  if (elementCount(buffer.shape) != role.elements)
    return "'" + role.name + "': expected a symmetric buffer of " +
           role.createdFor + ", got " + shapeText(buffer.shape);
  return "";
}

DeviceBuffers tensorView(std::vector<uint64_t> pointers,
                         const std::string &dtype, std::vector<int64_t> shape,
                         uint64_t elementBytes) {
  DeviceBuffers v;
  v.pointers = std::move(pointers);
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.bytes = elementBytes * static_cast<uint64_t>(elementCount(v.shape));
  return v;
}

Expected<std::vector<ParamInfo>> resolveParamShapes(const KernelInfo &kernel,
                                                    const ParamShapes &shapes) {
  auto fail = [&](const std::string &what) {
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + kernel.name + "': " + what);
  };
  size_t users = userParamCount(kernel);
  std::vector<ParamInfo> params(kernel.params.begin(),
                                kernel.params.begin() + users);
  for (const auto &[name, shape] : shapes) {
    auto param =
        std::find_if(params.begin(), params.end(),
                     [&](const ParamInfo &p) { return p.name == name; });
    if (param == params.end() || !param->hasDynamicDims())
      return fail("the op gives a shape for '" + name +
                  "', which is not a parameter with dynamic dimensions");
  }
  for (ParamInfo &param : params) {
    if (!param.hasDynamicDims())
      continue;
    auto found = shapes.find(param.name);
    if (found == shapes.end())
      return fail("parameter '" + param.name + "' has dynamic dimensions (" +
                  shapeText(param.shape) + ") and the op gives no shape");
    const std::vector<int64_t> &shape = found->second;
    bool matches = shape.size() == param.shape.size();
    for (size_t i = 0; matches && i < shape.size(); ++i)
      matches = shape[i] >= 1 && (param.shape[i] == abi::kDynamicDim ||
                                  param.shape[i] == shape[i]);
    if (!matches)
      return fail("parameter '" + param.name + "' is " +
                  shapeText(param.shape) + ", the op gives " +
                  shapeText(shape));
    param.shape = shape;
  }
  return params;
}

Expected<std::vector<ParamBinding>>
planBindings(const KernelInfo &kernel, const std::string &templateName,
             const std::vector<RoleSpec> &roles) {
  auto fail = [&](const std::string &what) {
    return Error(ErrorCode::InvalidArgument, "kernel '" + kernel.name +
                                                 "' of template '" +
                                                 templateName + "': " + what);
  };
  size_t users = userParamCount(kernel);
  std::vector<ParamBinding> plan;
  std::vector<bool> bound(roles.size(), false);
  for (size_t p = 0; p < users; ++p) {
    const ParamInfo &param = kernel.params[p];
    auto role =
        std::find_if(roles.begin(), roles.end(),
                     [&](const RoleSpec &r) { return r.param == param.name; });
    if (role != roles.end()) {
      size_t r = role - roles.begin();
      bool tensor = param.kind == abi::ParamKind::Buffer ||
                    param.kind == abi::ParamKind::Symmetric;
      if (!tensor)
        return fail("parameter '" + param.name + "' is a " +
                    paramKindName(param.kind) +
                    ", expected a tensor for the op's role");
      if (role->memberBlock && param.kind != abi::ParamKind::Symmetric)
        return fail("parameter '" + param.name +
                    "' takes the member's block of a symmetric tensor, but "
                    "it is a plain buffer");
      bound[r] = true;
      plan.push_back({ParamBinding::Role, r});
    } else if (param.kind == abi::ParamKind::Semaphore) {
      plan.push_back({ParamBinding::Semaphores});
    } else if (param.kind == abi::ParamKind::Symmetric) {
      plan.push_back({ParamBinding::SymmetricWorkspace});
    } else if (param.kind == abi::ParamKind::Buffer) {
      plan.push_back({ParamBinding::LocalWorkspace});
    } else {
      return fail("parameter '" + param.name + "' (a " +
                  paramKindName(param.kind) +
                  ") is bound by no role of the op");
    }
  }
  for (size_t r = 0; r < roles.size(); ++r)
    if (!bound[r])
      return fail("no parameter '" + roles[r].param + "'");
  return plan;
}

std::string
overlappingTensors(const std::vector<RoleSpec> &roles,
                   const std::vector<std::vector<TensorRef>> &tensors,
                   const std::vector<uint64_t> &bytes,
                   const std::vector<bool> &caller, size_t locals) {
  for (size_t r = 0; r < roles.size(); ++r) {
    if (!roles[r].disjoint || !caller[r])
      continue;
    for (size_t o = 0; o < roles.size(); ++o) {
      if (o == r || !caller[o])
        continue;
      for (size_t i = 0; i < locals; ++i) {
        uint64_t a = tensors[r][i].data, b = tensors[o][i].data;
        if (a < b + bytes[o] && b < a + bytes[r])
          return "'" + roles[r].param + "' overlaps '" + roles[o].param +
                 "' (local member " + std::to_string(i) +
                 "): this op does not run in place; pass tensors that do "
                 "not share memory";
      }
    }
  }
  return "";
}

std::vector<RoleSpec> opRoles(const std::string &op) {
  const OpSpec *spec = findOp(op);
  return spec ? spec->roles : std::vector<RoleSpec>{};
}

ParamShapes matmulParamShapes(const std::string &op, uint32_t teamSize,
                              const MatmulShape &shape) {
  const OpSpec *spec = findOp(op);
  if (!spec || !spec->matmulParamShapes)
    return {};
  return spec->matmulParamShapes(teamSize, shape);
}

int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

} // namespace weave::ops::detail
