"""Every crafted input of the battery, in one list, and how many there are per surface."""

from __future__ import annotations

from collections import Counter

from .case import Case
from .command_line import cli_cases
from .frontends import frontend_cases
from .kernel_files import kernel_file_cases
from .processes import process_cases
from .runs import ncu_cases, run_cases
from .sessions import index_cases, stage_cases, variant_cases
from .traces import inductor_cases, tritonparse_cases
from .writers import writer_cases


def all_cases() -> list[Case]:
    cases = [
        *index_cases(),
        *variant_cases(),
        *stage_cases(),
        *writer_cases(),
        *frontend_cases(),
        *cli_cases(),
        *kernel_file_cases(),
        *tritonparse_cases(),
        *inductor_cases(),
        *ncu_cases(),
        *run_cases(),
        *process_cases(),
    ]
    ids = Counter(c.id for c in cases)
    repeated = [i for i, n in ids.items() if n > 1]
    assert not repeated, f"two cases with one id: {repeated[:5]}"
    return cases


CASES = all_cases()


def per_surface(cases: list[Case] = CASES) -> dict[str, int]:
    """Case counts by surface, the command left out (``session.json@dump`` counts as ``session.json``)."""
    return dict(sorted(Counter(c.surface.split("@")[0] for c in cases).items()))


def per_command(cases: list[Case] = CASES) -> dict[str, int]:
    return dict(sorted(Counter(c.surface.split("@")[-1] for c in cases if "@" in c.surface).items()))
