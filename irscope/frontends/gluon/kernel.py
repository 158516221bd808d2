"""A Gluon kernel: a Triton kernel whose function Triton compiles from a ``GluonASTSource``, with layouts for
constexprs.

Everything else (signatures, specs, the JIT's specialization, ptxas's report, the cache folder per file) is
the Triton frontend's: Triton compiles both languages through one ``triton.compile``.
"""

from __future__ import annotations

from typing import Any

from ...arch import Vendor
from ...errors import ParameterError
from ...stages import Stage
from ...types import Config
from ..config import expression_value
from ..triton.compile import STAGES
from ..triton.kernel import TritonKernel
from .layouts import is_layout, layout_from_text, layout_text, looks_like_layout

# Triton writes a Gluon function's first module, before any pass, as asm["source"] (compiler.py: the
# "{name}.source" file); its "ttgir" is that module after Gluon's passes (inlining, layouts resolved).
GLUON_ASM_STAGES = {"source": Stage.GLUON, **{k: v for k, v in STAGES.items() if k != "ttir"}}


class GluonKernel(TritonKernel):
    """A ``@gluon.jit`` function, where it lives and how to build its inputs."""

    frontend = "gluon"
    stages = (Stage.GLUON, Stage.TTGIR, Stage.LLIR, Stage.PTX, Stage.SASS, Stage.AMDGCN)
    vendors = (Vendor.NVIDIA, Vendor.AMD)
    asm_stages = GLUON_ASM_STAGES

    def __repr__(self) -> str:
        return f"GluonKernel({self.name!r}, {self.file!r})"

    def source_type(self) -> Any:
        from triton.experimental.gluon._runtime import GluonASTSource

        return GluonASTSource

    @property
    def records_passes(self) -> bool:
        # Gluon's pipeline is its backend's gluon_to_ttgir, under the stage name "ttgir", then make_llir: the same
        # pass dumps Triton's read (tests/test_gluon_passes.py: the IR before the first pass is the Gluon IR).
        return True

    def constexpr_values(self, config: Config) -> dict[str, Any]:
        return {n: self._layout(n, v) for n, v in config.constexprs.items()}

    def _layout(self, name: str, value: Any) -> Any:
        if isinstance(value, str) and looks_like_layout(value):
            return layout_from_text(name, value)
        return value

    def check_config(self, config: Config) -> None:
        """Every layout's text reads as a layout of the running Triton (one line now, not a failed compile)."""
        self.constexpr_values(config)
        super().check_config(config)

    def parameter_table(self) -> dict[str, dict[str, Any]]:
        """Triton's table, with each constexpr that may be a layout marked ``expression`` (its ``-c`` value is kept
        as text) and a spec's layout objects written as text: a config, and so a session, holds no object."""
        table = super().parameter_table()
        names = set(self.constexpr_names()) | (set(self.spec.constexprs) if self.spec is not None else set())
        for name, entry in table.items():
            if name not in names or entry.get("kind") != "constexpr":
                continue
            default = entry.get("default")
            if default is None or is_layout(default) or isinstance(default, str):
                entry["expression"] = True
            entry["default"] = _as_text(name, default)
            entry["sweep"] = [_as_text(name, v) for v in entry.get("sweep") or []]
        return table


def _as_text(name: str, value: Any) -> Any:
    if is_layout(value):
        return layout_text(value)
    if isinstance(value, str) and looks_like_layout(value):
        return expression_value(name, value)  # spaced as -c's values are, so the two name one config
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise ParameterError(f"constexpr {name}: a {type(value).__name__} is neither a layout nor a number")
