"""The cache simulator's Python tools (profile_diff), importable as
bench.cachesim; the plugin itself is C (README.md)."""
