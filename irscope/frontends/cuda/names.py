"""Which CUDA kernel a name means: ``norm``, ``v1::norm``, ``scale<float>``, in the ``.cu`` file and in nvcc's PTX.

A ``.cu`` file may hold several kernels of one name in different namespaces, and a template
kernel is as many kernels as it has instantiations. The user names one the way C++ does
(``file.cu:v1::norm``, ``file.cu:scale<__half>``); a name that fits several is refused with
the list of them, never settled by picking the first. Before the compile the candidates are
what the file's text declares and instantiates (source.py); after it, the entries nvcc made,
read back into C++ names by the toolkit's demangler, decide which one is the kernel's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import KernelNotFound

if TYPE_CHECKING:
    from .source import CudaKernelDecl

# norm   v1::norm   ::v1::detail::norm
QUALIFIED = re.compile(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
# What a template argument list may hold: types, numbers, qualified names, pointers, nested lists.
ARGUMENT_TEXT = re.compile(r"<[\w\s:,<>*&()+\-.\[\]]*>")
LONGEST = 400  # characters: far beyond any real kernel's name, well short of flooding a terminal
SPELLING = "NAME, NAMESPACE::NAME or NAME<TEMPLATE ARGS> (e.g. norm, v1::norm, scale<float>)"


def normal_arguments(args: str) -> str:
    """``< const float *, 4 >`` -> ``<const float*,4>``: one spelling of a template argument list, to compare."""
    return re.sub(r"\s*([^\w\s])\s*", r"\1", " ".join(args.split()))


def shown(name: str) -> str:
    """A kernel name as C++ prints it: ``scale<float, 4>``."""
    return name.replace(",", ", ")


# What a template argument list's nesting turns on.
NESTING = re.compile(r"[<>()\[\];{}]")
DEEPEST = 32  # nesting tokens read before giving up: no real argument list comes near


def template_arguments(text: str, start: int) -> str | None:
    """The ``<...>`` that opens at ``start`` (balanced, parentheses respected), or None if it does not close."""
    depth = parens = 0
    for n, m in enumerate(NESTING.finditer(text, start)):
        ch = m.group()
        if n >= DEEPEST or (ch in ";{}" and parens == 0):
            return None
        if ch in "([":
            parens += 1
        elif ch in ")]":
            parens -= 1
        elif parens == 0:
            depth += 1 if ch == "<" else -1
            if depth == 0:
                return text[start : m.end()]
    return None


def split_name(name: str) -> tuple[str, str]:
    """``v1::scale<float>`` -> (``v1::scale``, ``<float>``); KernelNotFound (one line) if it is no C++ kernel name."""
    text = name.strip()
    cut = text.find("<")
    base, args = (text, "") if cut < 0 else (text[:cut].strip(), text[cut:])
    well_formed = (
        len(text) <= LONGEST
        and QUALIFIED.fullmatch(base) is not None
        and (not args or (ARGUMENT_TEXT.fullmatch(args) is not None and template_arguments(args, 0) == args))
    )
    if not well_formed:
        spelled = repr(text) if len(text) <= 60 else repr(text[:57] + "...")
        raise KernelNotFound(f"{spelled} is not a CUDA kernel name: give {SPELLING}")
    return base.removeprefix("::"), normal_arguments(args)


def _names(qualified: str, base: str) -> bool:
    """Does ``base`` (``norm``, ``v1::norm``) name the kernel ``qualified``, its namespaces left out or not?"""
    return qualified == base or qualified.endswith("::" + base)


def choose(
    decls: Sequence[CudaKernelDecl],
    wanted: str | None,
    path: Path | str,
    kind: str,
    naming: Callable[[str], str] | None = None,
) -> str:
    """The kernel of ``decls`` that ``wanted`` names (the only one when None), qualified, with its template
    arguments where the file instantiates it; or KernelNotFound, one line listing what there is.

    ``path`` names the source in a message, and ``naming`` how the user names a kernel of it
    (default ``path:NAME``, as on the command line)."""
    spell = naming or (lambda name: f"{path}:{name}")
    openable = [name for decl in decls for name in decl.openable]
    listed = ", ".join(shown(name) for name in openable) or "none"
    if wanted is None:
        if len(openable) != 1:
            raise KernelNotFound(f"{path} holds {len(openable)} {kind}s ({listed}); name one as {spell('NAME')}")
        return openable[0]
    base, args = split_name(wanted)
    found = [decl for decl in decls if _names(decl.name, base)]
    if not found:
        raise KernelNotFound(f"no {kind} named {wanted!r} in {path}; found: {listed}")
    if len(found) > 1:
        several = ", ".join(decl.name for decl in found)
        raise KernelNotFound(f"{wanted!r} is ambiguous in {path}: {several}; name one as {spell(found[0].name)}")
    decl = found[0]
    if args:
        if not decl.template:
            raise KernelNotFound(f"{decl.name} in {path} is not a template: name it as {spell(decl.name)}")
        if args in decl.instances or not decl.instances or decl.open_uses:
            return decl.name + args  # one the file makes, or one nvcc may make: the compile says which
        made = ", ".join(shown(name) for name in decl.openable)
        raise KernelNotFound(f"{path} instantiates {decl.name} as {made}, not as {shown(decl.name + args)}")
    if len(decl.instances) > 1 and not decl.open_uses:
        made = ", ".join(shown(name) for name in decl.openable)
        raise KernelNotFound(
            f"{decl.name} in {path} is a template instantiated {len(decl.instances)} times ({made}); "
            f"name one as {spell(shown(decl.openable[0]))}"
        )
    return decl.openable[0] if not decl.open_uses else decl.name


def readable(demangled: str) -> str:
    """``void v1::scale<float>(float const*, float*)`` -> ``v1::scale<float>``: the function's qualified name."""
    text = demangled.strip()
    if text.endswith(")"):  # drop the parameter list: from the parenthesis that balances the last one
        depth = 0
        for i in range(len(text) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(text[i], 0)
            if depth == 0:
                text = text[:i]
                break
    depth, start = 0, 0
    for i, ch in enumerate(text):  # the return type (templates mangle it): what precedes the last top-level space
        depth += {"<": 1, "(": 1, ">": -1, ")": -1}.get(ch, 0)
        if ch == " " and depth == 0:
            start = i + 1
    return normal_arguments(text[start:].replace("(anonymous namespace)::", ""))


def entry_for(entries: Mapping[str, str], wanted: str) -> tuple[str | None, str]:
    """The PTX entry (mangled) of the kernel ``wanted`` among ``entries`` (mangled -> demangled; a name the
    demangler left alone maps to itself), and its C++ name (``wanted`` itself, or the one instantiation
    of a template named bare); else None and one line saying what nvcc made instead."""
    base, args = split_name(wanted)
    names = {entry: readable(text) for entry, text in entries.items()}
    exact = [entry for entry, name in names.items() if name == base + args]
    if not exact and not args:  # extern "C": the entry is the bare name, whatever namespace it is declared in
        exact = [entry for entry in entries if entry == base.rpartition("::")[2]]
    if not exact and not any(names[e] != e for e in entries):  # no demangler: match the mangled prefix
        exact = [entry for entry in entries if entry.startswith(mangled_prefix(base))] if not args else []
    if len(exact) == 1:
        return exact[0], wanted
    same = exact or [entry for entry, name in names.items() if _names(name.partition("<")[0], base)]
    if len(same) == 1 and not args:  # a template named bare, made once: that instantiation
        return same[0], shown(names[same[0]])
    if not same:
        return (
            None,
            f"nvcc emitted no entry for {shown(wanted)} (a template kernel that is never instantiated has none)",
        )
    made = ", ".join(sorted(shown(entries[entry]) for entry in same))
    if args or len(same) == 1:
        return None, f"nvcc made no {shown(wanted)}; it made {made}"
    return None, f"nvcc made {len(same)} kernels named {shown(wanted)} ({made}); name one with its template arguments"


def mangled_prefix(qualified: str) -> str:
    """How the Itanium ABI nvcc follows begins the name of a function ``qualified`` (``v1::norm`` -> ``_ZN2v14normE``)."""
    parts = qualified.split("::")
    spelled = "".join(f"{len(part)}{part}" for part in parts)
    return f"_ZN{spelled}E" if len(parts) > 1 else f"_Z{spelled}"
