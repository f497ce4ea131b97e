"""mpsport's runtime probe: observes one real training step of an unmodified script.

Pure Python, standard library and torch only; works with torch 1.13 through current 2.x.
Configured by environment variables set by `mpsport audit`:

  MPSPORT_PROBE_TRACE    where to write the trace (JSON, schema mpsport.trace/1)
  MPSPORT_PROBE_STEPS    optimizer steps to trace before stopping (default 1)
  MPSPORT_PROBE_DEVICE   the device the step is expected to run on (auto, cpu, cuda, mps)
  MPSPORT_PROBE_COMPARE  "cpu": replay the first traced step on the CPU and compare
  MPSPORT_PROBE_RTOL / MPSPORT_PROBE_ATOL   tolerances for that comparison
"""
from mpsport_probe.probe import install

__all__ = ["install"]
