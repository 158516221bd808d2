"""Independent words on an AMD variant: ``triton.compile``'s own output for it, in a process of its own, and
LLVM's: its comments in the AMDGCN, and the same LLIR compiled again with Triton's LDS made static,
through the LLVM inside Triton's wheel (the one that compiled the variant).

LLVM prints ``; Occupancy: N`` under each kernel, but counts only the LDS it sees: Triton's is
``@global_smem = external addrspace(3) global [0 x i8]``, sized at launch. Giving that global the
launch's bytes and compiling again (``translate_to_asm``, with the arguments Triton's
``HIPBackend.make_amdgcn`` passes) makes LLVM count them, so its comment is the occupancy of the
launch as LLVM's own rules have it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from irscope.stages import Stage

# triton.compile on its own, in a process of its own with a cache of its own: the reference.
REFERENCE = textwrap.dedent("""
    import importlib.util, json, sys
    import triton
    from triton import knobs
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    jobs, cache = json.loads(sys.argv[1]), sys.argv[2]
    knobs.cache.dir = cache
    out = {}
    for name, path, types, constants, divisible, options, arch, lanes in jobs:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        fn = getattr(module, name)
        constants = {**constants, **({"stride_bn": 1} if name == "tile_mm" else {})}
        attrs = {(i,): [["tt.divisibility", 16]] for i in divisible}
        source = ASTSource(fn, types, constants, attrs)
        compiled = triton.compile(source, target=GPUTarget("hip", arch, lanes), options=options)
        asm = {k: v for k, v in compiled.asm.items() if isinstance(v, str)}
        asm["hsaco"] = compiled.asm["hsaco"].hex()
        out[name + "@" + arch] = asm
    print(json.dumps(out))
""")


def triton_compiles(jobs: list, folder: Path, site: str | None = None) -> dict[str, dict[str, str]]:
    """``{"name@arch": asm}`` from triton.compile for each job ``(name, path, types, constants, divisible,
    options, arch, lanes)``; ``site``: a folder holding another Triton, first on the import path."""
    script = folder / "reference.py"
    script.write_text(REFERENCE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (site, os.environ.get("PYTHONPATH"))))}
    proc = subprocess.run(
        [sys.executable, str(script), json.dumps(jobs), str(folder / "triton-cache")],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


# @global_smem = external addrspace(3) global [0 x i8], align 16
# @global_smem = external local_unnamed_addr addrspace(3) global [0 x i8], align 16
DYNAMIC_LDS = re.compile(r"@global_smem = external (?:local_unnamed_addr )?addrspace\(3\) global \[0 x i8\]")


def llvm_says(text: str, what: str) -> int:
    """A number from LLVM's summary comments at the end of a listing: ``; Occupancy: 6``."""
    found = re.search(rf"^; {what}: (\d+)", text, re.M)
    assert found is not None, f"LLVM says no {what}"
    return int(found.group(1))


def metadata(text: str, key: str) -> int:
    """A number of the kernel's code object metadata, as the listing's YAML copy has it: ``.vgpr_count``."""
    found = re.search(rf"^\s+\.{key}:\s+(\d+)$", text, re.M)
    assert found is not None, f"the metadata has no .{key}"
    return int(found.group(1))


def with_static_lds(llir: str, lds: int, waves_per_eu: int | None = None) -> str:
    """``llir`` with Triton's launch-time LDS made a static ``lds``-byte array (and another waves_per_eu)."""
    out = DYNAMIC_LDS.sub(f"@global_smem = internal addrspace(3) global [{lds} x i8] undef", llir) if lds else llir
    if waves_per_eu is not None:
        out = re.sub(
            r'"amdgpu-waves-per-eu"="\d+, \d+"', f'"amdgpu-waves-per-eu"="{waves_per_eu}, {waves_per_eu}"', out
        )
    return out


def compile_llir(llir: str, arch: str) -> str:
    """AMDGCN for ``llir``, as Triton's HIP backend makes it (make_amdgcn's features and flags)."""
    from triton._C.libtriton import amd, llvm

    llvm.init_targets()
    features = "-real-true16" if "gfx11" in arch else ""
    return llvm.translate_to_asm(llir, amd.TARGET_TRIPLE, arch, features, [], True, False)


def occupancy_with_launch_lds(variant) -> int:
    """LLVM's ``; Occupancy:`` for ``variant`` once it sees the LDS Triton asks at launch."""
    llir = variant.listings[Stage.LLIR]
    assert variant.resources.shared == 0 or DYNAMIC_LDS.search(llir), "no launch-time LDS global to size"
    return llvm_says(compile_llir(with_static_lds(llir, variant.resources.shared), variant.arch), "Occupancy")


# %5 = tail call i32 @llvm.amdgcn.workitem.id.x(), !dbg !7
WORKITEM = re.compile(r"tail call (?:range\(i32 \d+, \d+\) )?i32 @llvm\.amdgcn\.workitem\.id\.x\(\)")


def with_workitem(llir: str, tid: int) -> str:
    """``llir`` compiled for one workitem: its id the constant ``tid``, which LLVM then folds into every
    address computed from it."""
    assert WORKITEM.search(llir), "no workitem id to fold"
    return WORKITEM.sub(f"add i32 0, {tid}", llir)
