"""Which measurement a variant shows: one rule, for the sweep table, the TUI and diff alike.

A runtime measured into the variant's session entry is the variant's own and
always wins. Without one, a machine with no GPU still sees what a real GPU
measured for this variant's source, config and arch, with the device and date in
its ``source``, so it is never mistaken for its own; and, unless the sample ran
the same PTX as the variant (its hash: ``Facts.ptx_sha256``), the build and timing
method it came from too (measure/samples.py).
Where several GPUs recorded the variant, the chosen one's recording is shown
(``gpu``, else ``--sample-gpu`` / ``$IRSCOPE_SAMPLE_GPU``, else an H100's), and
another GPU's where the chosen one has none (measure/samples.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..records import Measurement
from ..types import Config, KernelId
from .samples import sample_measurement

if TYPE_CHECKING:
    from ..session.store import Entry


def shown_measurement(
    kernel: KernelId,
    config: Config,
    arch: str,
    entry: Entry | None = None,
    gpu: str | None = None,
    ptx_sha256: str | None = None,
) -> Measurement | None:
    """The measurement to show for ``kernel`` at ``config`` on ``arch``, whose session entry is ``entry``.

    ``gpu`` names whose recorded sample to prefer (a substring of the device name, as ``--sample-gpu``).
    ``ptx_sha256``: the variant's PTX hash, where no entry carries it in its facts.
    """
    if entry is not None and entry.measurement is not None:
        return entry.measurement
    if ptx_sha256 is None and entry is not None:
        ptx_sha256 = entry.facts.ptx_sha256
    return sample_measurement(kernel, config, arch, gpu, ptx_sha256=ptx_sha256)
