# -*- Python -*-
import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Weave"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.weave_obj_root, "test")
config.excludes = ["CMakeLists.txt", "Inputs", "unit", "lit.cfg.py", "lit.site.cfg.py"]

config.environment["FILECHECK_OPTS"] = "--enable-var-scope --dump-input=fail"
config.substitutions.append(("%weave_src_root", config.weave_src_root))
config.substitutions.append(("%weave_obj_root", config.weave_obj_root))
config.substitutions.append(("%templates", os.path.join(config.weave_src_root, "ops", "templates")))
config.substitutions.append(("%examples", os.path.join(config.weave_src_root, "examples")))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

ptxas = os.path.join(config.cuda_toolkit_bin_dir, "ptxas")
if os.path.exists(ptxas) or shutil.which("ptxas"):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas if os.path.exists(ptxas) else shutil.which("ptxas")))

if config.enable_gpu_tests:
    config.available_features.add("cuda-device")

tools = [
    ToolSubst("weave-opt", unresolved="fatal"),
    ToolSubst("weavec", unresolved="fatal"),
    ToolSubst("weave-bundle", unresolved="fatal"),
    ToolSubst("weave-ops", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, [config.weave_tools_dir, config.llvm_tools_dir])
