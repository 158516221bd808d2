"""What listen.py recorded of a program's Helion configs, read back as data (``irscope run``'s collect.py).

Each record names a Helion kernel (an identifier), its file (text, never opened: its copy under the
run's ``sources/`` is read, inside the run), the ``-S`` words of its arguments (read by the same reader
as ``-S``), the config (each field checked by configs.py: numbers, words, booleans, None and lists of them;
nothing is evaluated) and the generated module's path, which only names the Triton compile that is this
config's (compared as text, never opened). A record that does not read is skipped with a reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import IrscopeError, ParameterError
from ...storage.files import contained, read_json, read_text
from ...types import Config
from ..cute.arguments import parse_arguments
from .configs import MAX_TEXT, checked_value, field_text
from .listen import FOLDER, FORMAT

MAX_FIELDS = 64  # Helion's configs have 13-20 fields


@dataclass(frozen=True)
class HelionRecorded:
    """One config of one Helion kernel the program compiled."""

    kernel: str  # the @helion.kernel function's name
    file: str  # its file, as the program ran it
    source: str  # that file's text
    arguments: str  # -S's words for the arguments it was bound to
    fields: dict[str, Any]  # the config, every field, as Helion normalized it
    module: str  # the generated module's path: the file Triton's record of its compile names
    generated: str  # that module's text, as Helion generated it (the helion_triton stage)

    def config(self) -> Config:
        """The config as a variant holds a Helion config: each field as text (configs.py: ``field_text``)."""
        return Config({}, {name: field_text(value) for name, value in self.fields.items()}, {})


def read_helion(raw: Path) -> tuple[list[HelionRecorded], list[str]]:
    """Every Helion config recorded under ``raw/helion`` (in order), and a reason for each one skipped."""
    out: list[HelionRecorded] = []
    skipped: list[str] = []
    folder = raw / FOLDER
    if not folder.is_dir() or folder.is_symlink():
        return out, skipped
    for path in sorted(folder.glob("[0-9]*.json")):
        try:
            out.append(_record(raw, read_json(contained(raw, Path(FOLDER) / path.name))))
        except (IrscopeError, ValueError, TypeError) as exc:
            skipped.append(f"helion/{path.name}: {exc}")
    return out, skipped


def _record(raw: Path, data: Any) -> HelionRecorded:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"not a record of format {FORMAT}")
    kernel = data.get("kernel")
    if not isinstance(kernel, str) or not kernel.isidentifier() or len(kernel) > 200:
        raise ValueError(f"kernel name {str(kernel)[:60]!r} is not an identifier")
    texts: dict[str, str] = {}
    for key in ("file", "module", "arguments", "source", "generated"):
        value = data.get(key)
        if not isinstance(value, str) or not value or len(value) > MAX_TEXT:
            raise ValueError(f"{key!r} is not a text of a path's length")
        texts[key] = value
    try:
        parse_arguments(texts["arguments"], kernel)
    except ParameterError as exc:
        raise ValueError(str(exc)) from None
    config = data.get("config")
    if not isinstance(config, dict) or not config or len(config) > MAX_FIELDS:
        raise ValueError("'config' is not an object of Helion config fields")
    fields = {}
    for name, value in config.items():
        if not name.isidentifier():
            raise ValueError(f"config field {name[:60]!r} is not a name")
        try:
            fields[name] = checked_value(name, value)
        except ParameterError as exc:
            raise ValueError(str(exc)) from None
        if len(field_text(fields[name])) > MAX_TEXT:
            raise ValueError(f"config field {name} is longer than a Helion config value")
    return HelionRecorded(
        kernel=kernel,
        file=texts["file"],
        source=read_text(contained(raw, texts["source"])),
        arguments=texts["arguments"],
        fields=fields,
        module=texts["module"],
        generated=read_text(contained(raw, texts["generated"])),
    )


__all__ = ["HelionRecorded", "read_helion"]
