"""Every TIR pass of one TileLang lowering, through TileLang's own pass instrumentation.

TileLang's ``TL_LOWER_TRACE`` is one ``tilelang.instrumentation.PassInstrumentationTool``: a compile
session (``compile_pass_instrumentation``) hands each tool's TVM ``PassInstrument`` to the
``PassContext`` the lowering runs in, and ``StackedPassInstrument`` pairs TVM's before- and after-pass
callbacks (nested passes too) into numbered events. ``PassRecorder`` is a tool of the same kind, in a
session of its own (TileLang's default tools left out, so a ``TL_LOWER_TRACE`` set in the environment
writes nothing here): for each pass, in the order the passes started (the order ``TL_LOWER_TRACE``
lists them), its name and the module's TVMScript (``str(mod)``, as ``TL_LOWER_TRACE`` keeps it) before
and after it. The code generator's own step (TIR in, CUDA out) is the ``tilelang_cuda`` stage, not a pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...ir.passes import PassDump, chained_log
from ...types import PassLog
from .stages import LOWERED_TIR


@dataclass(frozen=True)
class RecordedPass:
    sequence: int  # TileLang's number for it: the order the passes started
    name: str  # TVM's name for it: "tl.LayoutInference", "tirx.Simplify"
    parent: str  # the pass it ran inside ("" at the top): the PassStep's scope, by its short name
    before: str
    after: str


def short_name(name: str) -> str:
    """``tl.LayoutInference`` -> ``LayoutInference``: the name ``TL_LOWER_TRACE`` prints."""
    return name.rsplit(".", 1)[-1]


def listing(mod: Any) -> str:
    """The module's TVMScript as ``TL_LOWER_TRACE`` keeps it, ``str(mod)``, and the newline a listing ends with
    (TVMScript ends with none; a PassLog keeps lines)."""
    text = str(mod)
    return text if text.endswith("\n") else text + "\n"


def recorder_tool() -> Any:
    """A fresh ``PassRecorder`` (a TileLang ``PassInstrumentationTool``; TileLang imported only here)."""
    from tilelang.instrumentation import PassEventObserver, PassInstrumentationTool, StackedPassInstrument

    class Observer(PassEventObserver):
        def __init__(self, passes: list[RecordedPass]) -> None:
            self.passes = passes
            self.names: dict[int, str] = {}

        def pass_started(self, mod: Any, event: Any) -> str:
            self.names[event.sequence] = event.name
            return listing(mod)

        def pass_finished(self, mod: Any, event: Any, before: str) -> None:
            parent = self.names.get(event.parent_sequence, "") if event.parent_sequence is not None else ""
            self.passes.append(RecordedPass(event.sequence, event.name, parent, before, listing(mod)))

    class PassRecorder(PassInstrumentationTool):
        def __init__(self) -> None:
            self.passes: list[RecordedPass] = []
            self._sequence = 0

        def _next(self) -> int:
            self._sequence += 1
            return self._sequence - 1

        def create_pass_instrument(self) -> Any:
            # one numbering across every PassContext of the compile, as TL_LOWER_TRACE's
            return StackedPassInstrument(Observer(self.passes), capture_nested=True, sequence_allocator=self._next)

        def log(self) -> PassLog | None:
            return pass_log(self.passes)

    return PassRecorder()


def pass_log(passes: list[RecordedPass]) -> PassLog | None:
    """The recorded passes as a ``PassLog``, in the order they started; each keeps the IR it started from
    where that is not the IR the pass before it left (a nested pass, the device Filter)."""
    ordered = sorted(passes, key=lambda p: p.sequence)
    if not ordered:
        return None
    chain = [
        (PassDump(short_name(p.name), p.name, short_name(p.parent), ""), LOWERED_TIR, p.before, p.after)
        for p in ordered
    ]
    return chained_log(ordered[0].before, chain)
