"""Record a tritonparse trace with launch events on a GPU (issue 18), as irscope's sample.

tritonparse writes a launch event only when a kernel really runs. This traces a small kernel written for
the sample at two configs, launched on real tensors, with SASS dumped, then parses the trace with
tritonparse's own parser. Run on the GPU machine:

    python tests/gpu/record_tritonparse_trace.py OUT_DIR
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/: the kernels written for them
from written_kernels import SCALED_ADD

RUN = """\
import sys
sys.path.insert(0, sys.argv[1])
import tritonparse.structured_logging as tp
tp.init(sys.argv[1] + "/logs", enable_trace_launch=True, enable_sass_dump=True)
import torch, triton
from scaled_add import scaled_add
n = 1 << 20
x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
out = torch.empty_like(x)
for block, warps in ((256, 4), (1024, 8)):
    scaled_add[(triton.cdiv(n, block),)](x, y, out, n, 2.0, BLOCK=block, num_warps=warps)
torch.cuda.synchronize()
assert torch.allclose(out, 2.0 * x + y)
from tritonparse.parse.utils import unified_parse
unified_parse(sys.argv[1] + "/logs", out=sys.argv[1] + "/parsed", overwrite=True)
"""


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    (out / "scaled_add.py").write_text(SCALED_ADD)
    done = subprocess.run([sys.executable, "-c", RUN, str(out)], capture_output=True, text=True, timeout=600)
    print(done.stdout[-2000:], done.stderr[-3000:])
    for path in sorted(out.rglob("*")):
        if path.is_file():
            print(path.relative_to(out), path.stat().st_size)


if __name__ == "__main__":
    main()
