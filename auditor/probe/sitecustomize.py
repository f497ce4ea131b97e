"""mpsport's probe hook: installed on PYTHONPATH by `mpsport audit`, inert unless MPSPORT_PROBE=1.

It chains to any other sitecustomize further down sys.path, so a lab's own site customisation
still runs.
"""
import importlib
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))


def _chain_to_next_sitecustomize():
    saved_path = list(sys.path)
    ours = sys.modules.pop("sitecustomize", None)
    try:
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
        importlib.import_module("sitecustomize")
    except ImportError:
        pass
    finally:
        sys.path[:] = saved_path
        if ours is not None:
            sys.modules["sitecustomize"] = ours


_chain_to_next_sitecustomize()

if os.environ.get("MPSPORT_PROBE") == "1":
    from mpsport_probe import install

    install()
