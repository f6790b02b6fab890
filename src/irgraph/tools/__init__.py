"""Debugging tools on top of io and runtime: diff, extract, compare, layerwise, backends, feeds, profiling, progress."""
