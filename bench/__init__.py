"""Benchmark harness: gridmux beside its predecessor (run ``python -m bench.run``)."""
