"""make check's Python checks: the series' figures, make deb's config, static checkers."""
