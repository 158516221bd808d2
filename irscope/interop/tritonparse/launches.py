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

# torch's dtype names -> Triton's pointee types
POINTEE = {
    "torch.float32": "fp32",
    "torch.float16": "fp16",
    "torch.bfloat16": "bf16",
    "torch.float64": "fp64",
    "torch.int8": "i8",
    "torch.int16": "i16",
    "torch.int32": "i32",
    "torch.int64": "i64",
    "torch.uint8": "u8",
    "torch.bool": "i1",
    "torch.float8_e4m3fn": "fp8e4nv",
    "torch.float8_e5m2": "fp8e5",
}
INT32 = range(-(2**31), 2**31)


def recorded_launches(launches: list[LaunchEvent], kernel: str, configs: dict[str, Config]) -> dict[str, Any]:
    """Each config's first launch (configs by compile hash), keyed as bench finds it again."""
    from ...frontends.triton.replay import launch_key

    out: dict[str, Any] = {}
    for launch in launches:
        config = configs.get(launch.hash) if launch.kernel == kernel else None
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
    """(signature, constants, divisible) as the JIT specializes this launch's arguments; None where one is unknown."""
    signature: dict[str, Any] = {}
    constants: dict[str, Any] = {}
    divisible = []
    for name in params:
        value = launch.arguments.get(name)
        if not isinstance(value, dict):
            return None
        kind = value.get("type")
        if name in constexprs:
            signature[name] = "constexpr"
            constants[name] = value.get("value")
        elif kind == "tensor" and isinstance(value.get("dtype"), str) and value["dtype"] in POINTEE:
            signature[name] = "*" + POINTEE[value["dtype"]]
            if _aligned(value.get("data_ptr")):
                divisible.append(name)
        elif kind == "int" and isinstance(value.get("value"), int):
            number = value["value"]
            if number == 1:
                signature[name], constants[name] = "constexpr", 1
            else:
                signature[name] = "i32" if number in INT32 else "i64"
                if number % 16 == 0:
                    divisible.append(name)
        elif kind == "float":
            signature[name] = "fp32"
        elif kind == "bool":
            signature[name] = "i1"
        elif kind == "NoneType":
            signature[name], constants[name] = "constexpr", None
        else:
            return None
    return signature, constants, divisible


def _aligned(pointer: Any) -> bool:
    # A pointer tritonparse did not record: torch's allocations are 16-byte aligned.
    if isinstance(pointer, str) and re.fullmatch(r"0x[0-9a-fA-F]+", pointer):
        return int(pointer, 16) % 16 == 0
    return True
