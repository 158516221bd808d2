"""A ``.cu`` file's template kernels and the instantiations it spells out, read from its text.

nvcc makes a template kernel's code only for the arguments the file instantiates it with:
an explicit instantiation (``template __global__ void scale<float>(...);``), a launch
(``scale<__half><<<grid, block>>>(...)``) or its address taken (``(void*)scale<float>``).
Arguments that name a template parameter or a macro (``scale<T>`` inside a templated
launcher) are not known before the compile: such a use marks the list as open, and the
PTX's entries decide (names.py), as they do for every template of a file that uses them
more than MOST_USES times. The text is scanned once, whatever its size.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from .names import normal_arguments, template_arguments

if TYPE_CHECKING:
    from .source import CudaKernelDecl, Scopes

# template <typename T, int N>: the names a template's own arguments may use (T, N)
TEMPLATE_HEAD = re.compile(r"\btemplate\s*<")
# typename T    class T    int N = 4    typename... Ts
PARAMETER_NAME = re.compile(r"(?:typename|class|[\w:]+)\s*(?:\.\.\.)?\s*([A-Za-z_]\w*)\s*(?:=[^,]*)?$")
MACRO_NAME = re.compile(r"^\s*#\s*define\s+(\w+)", re.M)
# v1::scale<float>   scale <__half>   ::scale<T>: a name (maybe qualified) followed by a `<`
USE = re.compile(r"(?<!\w)((?:::)?(?:[A-Za-z_]\w*\s*::\s*)*)([A-Za-z_]\w*)\s*(?=<)")
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# after `scale<float>`: a call or an instantiation `(`, a launch `<<<`, or the end of an expression
ENDS_A_USE = re.compile(r"\s*[(<),;]")
MOST_USES = 10_000  # uses of template kernels read in one file; past that, nvcc's entries decide
LOOK_BACK = 2000  # characters before a `__global__` in which its `template <...>` head may stand


def is_template(clean: str, start: int) -> bool:
    """Does a ``template <...>`` head come right before the ``__global__`` at ``start``?"""
    before = clean[max(0, start - LOOK_BACK) : start].rstrip()
    if not before.endswith(">"):
        return False
    depth = 0
    for i in range(len(before) - 1, -1, -1):
        depth += {">": 1, "<": -1}.get(before[i], 0)
        if depth == 0:
            return before[:i].rstrip().endswith("template")
    return False


def with_instances(clean: str, decls: Sequence[CudaKernelDecl], scopes: Scopes) -> list[CudaKernelDecl]:
    """``decls``, each template given the instantiations the file spells out for it (in file order)."""
    templates = [decl for decl in decls if decl.template]
    if not templates:
        return list(decls)
    by_bare: dict[str, list[CudaKernelDecl]] = {}
    for decl in decls:
        by_bare.setdefault(decl.name.rpartition("::")[2], []).append(decl)
    unknown = _template_parameters(clean) | set(MACRO_NAME.findall(clean))
    instances: dict[str, dict[str, None]] = {decl.name: {} for decl in templates}
    open_uses: set[str] = set()
    examined = 0
    for m in USE.finditer(clean):
        namesakes = by_bare.get(m.group(2))
        if not namesakes or not any(decl.template for decl in namesakes):
            continue
        examined += 1
        if examined > MOST_USES:  # a file no one writes: leave every template to the compile to settle
            open_uses.update(decl.name for decl in templates)
            break
        args = template_arguments(clean, m.end())
        if args is None or not ENDS_A_USE.match(clean, m.end() + len(args)):
            continue
        meant = _meant(namesakes, re.sub(r"\s+", "", m.group(1)).strip(":"), scopes.at(m.start()))
        if meant is None or not meant.template:
            continue
        if set(IDENTIFIER.findall(args)) & unknown:
            open_uses.add(meant.name)
        else:
            instances[meant.name].setdefault(normal_arguments(args))
    return [
        replace(decl, instances=tuple(instances[decl.name]), open_uses=decl.name in open_uses)
        if decl.template
        else decl
        for decl in decls
    ]


def _meant(namesakes: list[CudaKernelDecl], qualifier: str, scope: tuple[str, ...]) -> CudaKernelDecl | None:
    """Which of the kernels of one name a use spelled ``qualifier::name`` in namespaces ``scope`` means."""
    if len(namesakes) == 1:
        return namesakes[0]
    bare = namesakes[0].name.rpartition("::")[2]
    if qualifier:
        return next((d for d in namesakes if ("::" + d.name).endswith(f"::{qualifier}::{bare}")), None)
    for depth in range(len(scope), -1, -1):  # unqualified: the one in the innermost namespace open at the use
        here = "::".join([*scope[:depth], bare])
        found = next((d for d in namesakes if d.name == here), None)
        if found is not None:
            return found
    return None


def _template_parameters(clean: str) -> set[str]:
    """Every name a ``template <...>`` head of the file declares."""
    names = set()
    for m in TEMPLATE_HEAD.finditer(clean):
        args = template_arguments(clean, m.end() - 1)
        for part in (args or "<>")[1:-1].split(","):
            found = PARAMETER_NAME.search(part.strip())
            if found:
                names.add(found.group(1))
    return names
