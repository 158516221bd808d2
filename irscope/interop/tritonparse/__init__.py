"""tritonparse traces (meta-pytorch/tritonparse's NDJSON), read into sessions and written from them.

Read without tritonparse installed: the format is plain JSON lines, and reading it
here keeps irscope's own checks (data is data) on every field.

tritonparse traces (``tritonparse/``): ``events.py`` reads the NDJSON (plain or gzip, raw or mapped)
into typed compilation and launch events, checked field by field; ``session.py`` turns one kernel's
events into a session under the cache (written beside and renamed into place): each compile a
variant built from its recorded stages (``frontends/triton/recorded.py: compiled_from``), its
signature read from the TTIR's ``tt.func``, so that ``named.py: session_kernel`` rebuilds it
from the recorded source like any stored kernel; ``launches.py`` makes launch events into recorded
launches and the specialization they imply; ``mappings.py`` holds tritonparse's source mappings
against ``ir/locations.py``; ``write.py`` writes variants back as compilation events (``irscope
export``). Like ``run/``, it may import ``irscope.frontends.triton``. tritonparse itself is a test
dependency only.
"""
