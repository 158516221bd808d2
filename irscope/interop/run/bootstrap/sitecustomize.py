"""First on the program's PYTHONPATH while ``irscope run`` runs it (this folder holds nothing else).

Python imports ``sitecustomize`` once at start-up, before the program's code: this
one runs the ``sitecustomize`` the environment had (which it shadows), then starts
irscope's recorder (irscope/interop/run/hook.py) in the program's process.
"""

import os
import sys


def _chain() -> None:
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


def _start() -> None:
    try:
        from irscope.interop.run.hook import start
    except Exception as exc:
        sys.stderr.write(
            f"irscope run: this Python cannot import irscope ({type(exc).__name__}: {exc}); "
            "its kernels are not recorded\n"
        )
        return
    start()


_chain()
_start()
