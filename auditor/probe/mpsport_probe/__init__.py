"""mpsport's runtime probe: observes one real training step of an unmodified script.

Pure Python, standard library and torch only; works with torch 1.13 through current 2.x.
Configured by environment variables set by `mpsport audit`:

  MPSPORT_PROBE_TRACE    where to write the trace (JSON, schema mpsport.trace/1)
  MPSPORT_PROBE_STEPS    optimizer steps to trace before stopping (default 1)
  MPSPORT_PROBE_DEVICE   the device the step is expected to run on (auto, cpu, cuda, mps)
  MPSPORT_PROBE_COMPARE  "cpu": replay the first traced step on the CPU and compare
  MPSPORT_PROBE_RTOL / MPSPORT_PROBE_ATOL   tolerances for that comparison
  MPSPORT_PROBE_TIME     "1": also time the replayed step on the CPU (--time)
  MPSPORT_PROBE_REMAP    "cuda=cpu" or "cuda=mps": the trial port (remap.py)
  MPSPORT_PROBE_LEAK_THRESHOLD   memory rise first -> last step flagged as a suspected leak (0.26)
  MPSPORT_PROBE_NO_UPDATE_BACKWARDS   backward passes without any update before the probe stops (16)
"""
from mpsport_probe.probe import install

__all__ = ["install"]
