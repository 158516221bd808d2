"""The regression gate (``irscope check``): each variant's facts, a baseline of them, and the conditions
that compare the two.

A variant's facts (``facts.py``) are what CI gates a kernel on: registers, spills, shared memory,
occupancy, the widths of its global accesses, a hash of each stage's normalised listing and the
warnings among its findings. A baseline (``baseline.py``) is those facts for each variant, read from
a session or from a small JSON file ``irscope check --write-baseline`` writes; ``conditions.py`` says
which of them broke. Everything here needs only variants, never a compiler: the CLI captures them.
"""
