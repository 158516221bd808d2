"""A trace's launch events: the grid and argument layouts bench reruns, and the specialization they imply.

tritonparse describes each argument of a launch (a tensor's dtype, shape, strides and
data pointer; a scalar's value), never its data. That is what irscope's recorded
launches hold (``frontends/triton/replay.py``), and it is also what the JIT specializes
on: a pointer 16-byte aligned and an int divisible by 16 get ``tt.divisibility=16``, an
int equal to 1 (or None) becomes a constant, an int past int32 an i64. So a launch
says which signature the kernel was compiled with, from a second source beside the TTIR.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...types import Config
from .events import LaunchEvent


def recorded_launches(launches: list[LaunchEvent], kernel: str, configs: dict[str, Config]) -> dict[str, Any]:
    """Each config's first launch (configs by compile hash), keyed as bench finds it again."""
    from ...frontends.triton.replay import launch_key

    out: dict[str, Any] = {}
    for launch in launches:
        config = configs.get(launch.hash) if launch.kernel == kernel and launch.hash is not None else None
        if config is None or launch_key(config) in out:
            continue
        out[launch_key(config)] = {
            "grid": list(launch.grid),
            "arguments": {k: argument(v) for k, v in launch.arguments.items()},
        }
    return out


def argument(value: Any) -> Any:
    """tritonparse's description of an argument -> irscope's (replay.why_not checks it before any use)."""
    if not isinstance(value, dict):
        return {"repr": str(value)[:200]}
    kind = value.get("type")
    if kind == "tensor":
        return {
            "tensor": value.get("dtype"),
            "shape": value.get("shape"),
            "stride": value.get("stride"),
            "aligned": _aligned(value.get("data_ptr")),
        }
    if kind in ("int", "float", "bool", "str") and "value" in value:
        return value["value"]
    if kind == "NoneType":
        return None
    return {"repr": json.dumps(value)[:200]}


def specialization(launch: LaunchEvent, params: list[str], constexprs: list[str]) -> tuple[dict, dict, list] | None:
    """(signature, constants, divisible) as the JIT specializes this launch's arguments; None where one is unknown.

    Each argument is stood in for by what tritonparse recorded of it (a tensor's dtype, shape and address; a
    scalar's value) and specialized by irscope's one copy of the JIT's rules (``frontends/triton/specialize.py``,
    over Triton's own dtype table)."""
    from ...frontends.triton.specialize import ExampleTensor, specialize_arg

    signature: dict[str, Any] = {}
    constants: dict[str, Any] = {}
    divisible = []
    for name in params:
        value = launch.arguments.get(name)
        if not isinstance(value, dict):
            return None
        if name in constexprs:
            signature[name], constants[name] = "constexpr", value.get("value")
            continue
        kind, number = value.get("type"), value.get("value")
        if kind == "tensor" and isinstance(value.get("dtype"), str) and value["dtype"].startswith("torch."):
            shape = value.get("shape")
            dims = tuple(shape) if isinstance(shape, list) and all(isinstance(d, int) for d in shape) else (1,)
            arg: Any = ExampleTensor(
                value["dtype"].removeprefix("torch."), dims, 0 if _aligned(value.get("data_ptr")) else 4
            )
        elif (kind, type(number)) in (("int", int), ("float", float), ("float", int), ("bool", bool)):
            arg = float(number) if kind == "float" and number is not None else number
        elif kind == "NoneType":
            arg = None
        else:
            return None
        try:
            ty, key = specialize_arg(arg, False, True, True)
        except (KeyError, TypeError, ValueError, OverflowError):  # a dtype Triton has no type for, a huge int
            return None
        signature[name] = ty
        if ty == "constexpr":
            constants[name] = key
        elif key == "D":
            divisible.append(name)
    return signature, constants, divisible


def _aligned(pointer: Any) -> bool:
    # A pointer tritonparse did not record: torch's allocations are 16-byte aligned.
    if isinstance(pointer, str) and re.fullmatch(r"0x[0-9a-fA-F]+", pointer):
        return int(pointer, 16) % 16 == 0
    return True
