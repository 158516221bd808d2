"""What other tools wrote, and what a running program compiled, made into irscope sessions (and back).

Beside the pipeline rather than in it: each room here reads another tool's output as data and
hands the kernels it finds to the same capture and sessions the CLI uses.

- ``inductor/``: torch.compile's output code, ``TORCH_LOGS=output_code`` logs and ``TORCH_TRACE``
  folders -> the Triton kernels Inductor wrote -> one session each (``irscope inductor``).
- ``tritonparse/``: tritonparse's NDJSON traces -> sessions, and sessions -> traces (``irscope export``).
- ``run/``: ``irscope run``: a program run as it is, every kernel it compiled recorded from inside it
  (``hook.py``), then collected into sessions and ``run.json`` (``collect.py``).

Nsight Compute's reports are read in ``measure/ncu_report.py``, beside the ncu runs that make them:
measurement reads the reports it writes, and nothing in ``measure/`` imports from here.
"""
