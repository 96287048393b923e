"""make hw-check: the cache simulator against a real machine's counters."""
