# kcolour-probe: the userspace decoder and advisor, and the test entry points.

PROBE := tools-probe/kcolour-probe

.PHONY: probe probe-build

probe-build:
	@$(MAKE) -s -C tools-probe

probe: deps probe-build
	@$(PROBE)

check: deps
	@bash scripts/check.sh

check-full: deps
	@FULL=1 bash scripts/check.sh
