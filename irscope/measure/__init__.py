"""Measure: correctness against the torch reference, then timing, on a GPU.

Measuring (``measure/``): ``worker.py`` checks then times one variant in a GPU worker (one per GPU,
warmed up while variants compile; ``faults.py``: a CUDA fault ends it); ``autotuner.py`` runs the
kernel's own autotuner in a worker once the sweep is timed (``Kernel.run_autotuner``), for bench to
show its timings and pick beside irscope's; ``reference.py`` times a spec's torch reference, eager
or through torch.compile, and ``compare.py`` runs several implementations in one worker (``irscope
compare``); ``timing.py`` holds the three methods (cupti, events, graph) and ``l2.py`` the read-only
L2 sweep; ``hardware.py`` the device's copy rate and Triton's peak table; ``ncu.py`` runs Nsight
Compute (figures for a sweep, a report per variant) and ``ncu_report.py`` reads a report's
per-instruction counters through NVIDIA's ncu_report module, in a process of its own, into JSON that
``annotating/hotspots.py`` joins to the SASS and Python lines; ``results.py`` the derived figures;
``samples.py`` and ``runtimes.py`` what is shown without a GPU.
"""
