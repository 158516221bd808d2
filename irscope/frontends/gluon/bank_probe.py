"""The probe kernel banks.py code-generates to ask Gluon's ``bank_conflicts``: irscope's own code, never text from
data (the layouts reach it as Triton's layout objects, built by layouts.py). Imported only by banks.py, when
asked: importing it imports Triton's Gluon."""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def bank_conflicts_probe(
    out_ptr, ROWS: gl.constexpr, COLS: gl.constexpr, dtype: gl.constexpr, register: gl.constexpr, shared: gl.constexpr
):
    x = gl.full([ROWS, COLS], 0, dtype, register)
    tile = gl.allocate_shared_memory(dtype, [ROWS, COLS], shared)
    gl.store(out_ptr, gl.bank_conflicts(x.type, tile.type))
