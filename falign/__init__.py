"""The function alignment tooling: checks, text layouts, hot-text profiles, the decision."""
