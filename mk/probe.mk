# kcolour-probe, and the test entry points (harness/suites.py lists the suites).

PROBE := tools-probe/kcolour-probe

.PHONY: probe probe-build

probe-build: ## [use] build kcolour-probe (a C compiler is all it needs)
	@$(MAKE) -s -C tools-probe

# Only a C compiler: make deps is for the kernel, QEMU and bench targets.
probe: probe-build ## [use] build kcolour-probe and show this machine's caches
	@$(PROBE)

check: deps ## [check] run every test (ends with 'N passed, N failed, N skipped')
	@python3 -m harness check $(if $(FUZZ_SECONDS),--fuzz-seconds $(FUZZ_SECONDS)) $(if $(JOBS),--jobs $(JOBS)) $(if $(LOGDIR),--logdir "$(abspath $(LOGDIR))")

check-full: deps ## [check] make check plus the heavy variants (selftest matrix, 600 s fuzzing, kunit.py's own kernel, reliability SET=full)
	@python3 -m harness check --full $(if $(FUZZ_SECONDS),--fuzz-seconds $(FUZZ_SECONDS)) $(if $(JOBS),--jobs $(JOBS)) $(if $(LOGDIR),--logdir "$(abspath $(LOGDIR))")
