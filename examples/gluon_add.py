"""docs/gluon.md's kernel: an elementwise add whose layout is a constexpr the author passes in.

Its arguments' types: -S "*fp32:16, *fp32:16, *fp32:16, i32"; -c BLOCK=1024 -c 'layout=BlockedLayout([4], [32], [4], [0])'
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def gluon_add(x_ptr, y_ptr, out_ptr, n, BLOCK: gl.constexpr, layout: gl.constexpr):
    pid = gl.program_id(0)
    offs = pid * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offs < n
    x = gl.load(x_ptr + offs, mask=mask)
    y = gl.load(y_ptr + offs, mask=mask)
    gl.store(out_ptr + offs, x + y, mask=mask)
