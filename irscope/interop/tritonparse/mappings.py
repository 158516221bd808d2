"""tritonparse's source mappings held against irscope's own, line by line, so neither is trusted blind.

A mapped trace says, for each line of each stage, which Python file:line it came
from. irscope reads the same from the listing's own location records
(``ir/locations.py``). Where both name a location for a line and they differ, that
is a disagreement, kept with both sides. Lines only one side maps are counted, not
blamed: tritonparse maps MLIR's ``#loc`` definition lines, irscope the comment lines
between a PTX ``.loc`` and the next instruction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...ir.dialects import locations
from ...stages import Stage

STAGES = ("ttir", "ttgir", "llir", "ptx", "amdgcn", "sass")
SHOWN = 3  # disagreements kept per stage, enough to find the pattern


@dataclass
class StageCheck:
    agreed: int = 0
    disagreed: int = 0
    only_tritonparse: int = 0
    only_irscope: int = 0
    examples: list[str] = field(default_factory=list)  # "ptx:25 tritonparse a.py:7, irscope a.py:8"

    def to_json(self) -> dict:
        return dict(vars(self))


def check(stages: dict[str, str], mappings: dict[str, dict], file: str) -> dict[str, StageCheck]:
    """For each stage both have: how tritonparse's map of it compares with irscope's."""
    out = {}
    for name in STAGES:
        theirs = mappings.get(name)
        if name not in stages or not isinstance(theirs, dict):
            continue
        ours = locations(Stage(name), stages[name], file)
        result = StageCheck()
        mapped = set()
        for key, entry in theirs.items():
            number = int(key) if isinstance(key, str) and key.isdigit() else 0
            if not (1 <= number <= len(ours)) or not isinstance(entry, dict):
                continue
            mapped.add(number)
            loc = ours[number - 1]
            if loc is not None and isinstance(entry.get("file"), str):
                # irscope's chain for a line may hold several frames (a SASS line's PTX line, an inlined
                # call's site): the one in the file tritonparse names is the one to compare
                loc = loc.in_file(entry["file"]) or loc
            if loc is None:
                result.only_tritonparse += 1
            elif (loc.file, loc.line) == (entry.get("file"), entry.get("line")):
                result.agreed += 1
            else:
                result.disagreed += 1
                if len(result.examples) < SHOWN:
                    result.examples.append(
                        f"{name}:{number} tritonparse {entry.get('file')}:{entry.get('line')}, "
                        f"irscope {loc.file}:{loc.line}"
                    )
        result.only_irscope = sum(1 for n, loc in enumerate(ours, 1) if loc is not None and n not in mapped)
        out[name] = result
    return out


def summary(results: dict[str, StageCheck]) -> str | None:
    """One line about the disagreements, or None where the two maps agree wherever both map a line."""
    bad = {name: r for name, r in results.items() if r.disagreed}
    if not bad:
        return None
    counts = ", ".join(f"{name} {r.disagreed} of {r.agreed + r.disagreed}" for name, r in bad.items())
    first = next(iter(bad.values())).examples[0]
    return f"tritonparse's source map and irscope's disagree on lines of {counts} (first: {first})"
