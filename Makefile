# kcolour: every entry point.  `make help` lists them.
#
# Paths: build/ holds everything made inside the clone (ignored by git);
# KCOLOUR_CACHE (outside the clone) holds what is worth keeping between
# clones: the unpacked base kernel and finished kernel images, keyed by
# the inputs of the build (harness/kernel.py).

FIXTURES      ?= $(abspath $(shell awk -F'\t' '$$1 == "path" && $$2 == "fixtures" { print $$3 }' facts.tsv))
BUILD         := $(CURDIR)/build
KCOLOUR_CACHE ?= $(HOME)/.cache/kcolour
export FIXTURES BUILD KCOLOUR_CACHE

# The scripts read their options from flags, not from the environment: a
# target turns its make variables into them (the bench tools' shared ones
# here, bench/lib/runner.py options()).
RUN_FLAGS = $(strip $(if $(RESUME),--resume) $(if $(REPORT_ONLY),--report-only) \
	$(if $(WORK),--work "$(abspath $(WORK))") $(if $(JOBS),--jobs $(JOBS)) \
	$(if $(POOL),--pool $(POOL)))
BENCH_FLAGS = $(strip $(if $(QUICK),--quick) $(RUN_FLAGS))

.PHONY: all help deps probe check check-full

# Bare make installs nothing: it lists the entry points.
all: help

# Each target's `## [GROUP] text`: the groups in HELP_GROUPS' order.
HELP_GROUPS = use check bench series
help: ## [use] this list, by group (bare make prints it too), read from the `## [GROUP] ` comments on the targets
	@awk -F':' -v groups="$(HELP_GROUPS)" '/^[a-z][a-z0-9-]*:.*## \[[a-z]+\] / { \
		d = $$0; sub(/^[^#]*## \[/, "", d); g = d; sub(/\].*/, "", g); sub(/^[a-z]+\] /, "", d); \
		out[g] = out[g] sprintf("  make %-20s %s\n", $$1, d) } \
		END { n = split(groups, order, " "); for (i = 1; i <= n; i++) \
			if (order[i] in out) printf "%s%s:\n%s", (i > 1 ? "\n" : ""), order[i], out[order[i]] }' \
		$(MAKEFILE_LIST)

deps: ## [use] install the Debian packages the project needs (root or sudo; only what is missing; deps-probe, -kernel, -bench, -checkers: a part)
	@bash scripts/deps.sh

# A target installs only the parts it runs: probe, kernel, bench, checkers.
deps-%:
	@bash scripts/deps.sh $*

include mk/*.mk
