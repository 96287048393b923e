# kcolour-probe, and the test entry points (harness/suites.py lists the suites).

PROBE := tools-probe/kcolour-probe

.PHONY: probe probe-build

probe-build:
	@$(MAKE) -s -C tools-probe

# Only a C compiler: make deps is for the kernel, QEMU and bench targets.
probe: probe-build
	@$(PROBE)

check: deps
	@python3 -m harness check

check-full: deps
	@python3 -m harness check --full
