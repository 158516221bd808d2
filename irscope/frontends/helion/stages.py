"""The stage only a Helion compile has: the Triton module Helion generated for one config.

Registered in irscope/stages.py beside Gluon's IR (``--stage helion_triton`` is offered, and a stored Helion
variant read, before any frontend is imported); named here for this frontend's modules.
"""

from __future__ import annotations

from ...stages import Stage

HELION_TRITON: Stage = Stage.HELION_TRITON
