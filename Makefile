# kubesync. `make test` is what CI runs: it builds the pinned control plane (once per
# machine), checks formatting and vet, and runs every spec with the race detector,
# fv specs against a real etcd + kube-apiserver included.

GO       ?= go
PKGS     ?= ./...

# The checkout is a workspace (go.work) of five modules: the library at the root,
# and cmd, controlplane, crcache and fv, each a module of its own so that what they require
# (cobra, etcd's client, controller-runtime, gonum/plot) never enters the build of
# a program that imports the library. A pattern such as ./... stays inside one
# module, so the targets name every module's: ALL is ./... of each. PKGS=./...
# means ALL.
MODULE_DIRS := $(patsubst $(CURDIR)%,.%,$(shell $(GO) list -m -f '{{.Dir}}'))
ALL = $(MODULE_DIRS:%=%/...)
RUNPKGS = $(if $(filter ./...,$(PKGS)),$(ALL),$(PKGS))
DURATION ?= 2h
SET      ?= dataplane

# The folder holding etcd and kube-apiserver; build.sh builds them on first use.
ASSETS = $$(tools/controlplane/build.sh)

.PHONY: build test test-unit test-cp test-pkgs lint controlplane unit fv soak chaos bench run api importer

build:
	$(GO) build $(ALL)

# make test's builds carry no DWARF: nothing here reads it (stacks and race reports
# use the symbol table), and leaving it out saves a fifth of the compiler's CPU on
# a cold build, and a quarter of each test binary's link. GOFLAGS carries them to
# every go command of those targets, the fv specs' build of cmd/kubesync included,
# so that all of them share one build cache.
NODWARF = -gcflags=all=-dwarf=false -ldflags=-w
lint test test-unit test-cp test-pkgs importer: export GOFLAGS := $(strip $(filter-out $(NODWARF),$(GOFLAGS)) $(NODWARF))

# vet with -race compiles the dependencies as the race-enabled test build does, so
# that `make test` compiles them once, not twice (vet reads their export data); the
# specs then skip go test's own vet, a subset of lint's. The library's go.mod must
# be tidy (it requires nothing its packages and their tests do not use: an importer
# inherits every requirement), and its exported API must match api/kubesync.api
# but for the changes CHANGELOG.md's Unreleased section names (tools/api/check.sh).
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@GOWORK=off $(GO) mod tidy -diff || { echo "the library's go.mod or go.sum is not tidy: GOWORK=off go mod tidy"; exit 1; }
	$(GO) vet -race $(ALL)
	tools/api/check.sh

# Rewrites api/kubesync.api, the exported API that lint holds the library to: run
# it when a release's CHANGELOG.md section is written.
api:
	tools/api/check.sh -w

# A program that imports the library, pinned at the oldest and the newest k8s.io
# release it supports, keeps its pins, its go line and a light module graph, and
# runs the README's program under the race detector (tools/importer/check.sh).
importer:
	tools/importer/check.sh

controlplane:
	tools/controlplane/build.sh

# Unit specs only: no control plane needed.
unit:
	$(GO) test -race -count=1 $(UNITPKGS)

# The fv specs are split into packages (fv, fv/command, fv/warmstart, fv/soak,
# fv/liveness, fv/chaosspec, fv/fleet, fv/harness, fv/ha), each with its own
# control plane, and most of their time is spent waiting on it: TESTP packages run
# at once, more than the cores, so that those waits overlap each other and the
# compiles. go test's -p counts a running test binary as one of its slots, so the
# four longest (LONGPKGS, about 3½ minutes each of mostly fixed windows) would
# hold four slots and leave the cores idle; the other two compile and run the
# remaining packages in those windows.
TESTP ?= 6

# The packages whose specs start a control plane (package controlplane, and
# those whose tests link it); every other package is a unit package. go test starts
# packages in the order given, so the four that wait longest (minutes of fixed
# windows) come first, and the run does not end on one of them started last.
LONGPKGS = ./fv/liveness ./fv/chaosspec ./fv/soak ./fv
CPPKGS = $(LONGPKGS) ./cmd/... ./fv/... ./controlplane/...
UNITPKGS = $$($(GO) list $(ALL) | grep -v -e /cmd/ -e /fv -e /kubesync/controlplane)

# When the control plane must be built, `make test` runs two steps at a time,
# whatever -j it is given: the build (minutes of compiling kube-apiserver, much of
# it one core's link or a download) overlaps lint and then the unit specs, which
# need no control plane; the specs that need it follow. Once it is built, every
# package runs at once, TESTP at a time. PKGS narrows the run to those packages.
test:
	@if [ "$(PKGS)" != ./... ] || tools/controlplane/build.sh --built >/dev/null; then \
		$(MAKE) --no-print-directory test-pkgs; \
	else \
		$(MAKE) --no-print-directory -j2 test-unit test-cp; \
	fi

test-unit: lint importer
	$(GO) test -race -count=1 -vet=off -p $(TESTP) -timeout 60m $(UNITPKGS)

test-cp: lint controlplane test-unit
	KUBEBUILDER_ASSETS=$(ASSETS) $(GO) test -race -count=1 -vet=off -p $(TESTP) -timeout 60m $(CPPKGS)

test-pkgs: lint $(if $(filter ./...,$(PKGS)),importer) controlplane
	KUBEBUILDER_ASSETS=$(ASSETS) $(GO) test -race -count=1 -vet=off -p $(TESTP) -timeout 60m $(if $(filter ./...,$(PKGS)),$(LONGPKGS)) $(RUNPKGS)

fv: controlplane
	KUBEBUILDER_ASSETS=$(ASSETS) $(GO) test -race -count=1 -p $(TESTP) -timeout 60m -v ./fv/...

soak: controlplane
	KUBEBUILDER_ASSETS=$(ASSETS) KUBESYNC_SOAK_DURATION=$(DURATION) $(GO) test -count=1 -timeout 0 -v ./fv/soak/ -ginkgo.label-filter=soak

# A chaos run (fv/chaos): SEED picks the schedule (default: the time), DURATION
# the time faults are injected (default here 20m, not the soak's 2h). The report
# goes to stdout and is appended to CHAOS.md; a failing run exits 1.
SEED ?= $$(date +%s)
CHAOS_DURATION = $(if $(filter command line environment,$(origin DURATION)),$(DURATION),20m)

chaos: controlplane
	KUBEBUILDER_ASSETS=$(ASSETS) $(GO) run ./fv/chaos/cmd/chaos -seed $(SEED) -duration $(CHAOS_DURATION) -append CHAOS.md

bench: controlplane
	KUBEBUILDER_ASSETS=$(ASSETS) $(GO) run ./fv/bench/cmd/benchmark -out BENCHMARKS.md
	KUBEBUILDER_ASSETS=$(ASSETS) $(GO) run ./fv/bench/cmd/kubers -out BENCHMARKS-kubers.md
	KUBEBUILDER_ASSETS=$(ASSETS) $(GO) run ./fv/bench/cmd/crcache -out BENCHMARKS.md

# N agents against one apiserver: cold and warm starts, rolling and apiserver restarts.
# The fv HA spec runs first, on its own three apiservers: its time from the last
# fault to convergence is one of FLEET.md's targets.
.PHONY: fleet
fleet: controlplane
	ha=$$(mktemp --suffix .json) && \
	KUBEBUILDER_ASSETS=$(ASSETS) $(GO) test -count=1 ./fv/ha -args -ginkgo.json-report=$$ha && \
	KUBEBUILDER_ASSETS=$(ASSETS) $(GO) run ./fv/fleet/cmd/fleet -out FLEET.md -ha-report $$ha; \
	rc=$$?; rm -f $$ha; exit $$rc

run: controlplane
	KUBEBUILDER_ASSETS=$(ASSETS) $(GO) run ./cmd/kubesync watch $(SET) --local --demo-changes 2 -o table

# The deterministic simulator of the syncer (syncer/sim*_test.go, internal/sim)
# over SEEDS seeds from FROM, in SIMP processes at once: each prints its seeds'
# time, fault mix and, by defect, the seeds that broke a rule of the oracle,
# shrunk. make test runs the suite's fixed seeds; docs/sim.md records runs of this.
SEEDS ?= 100000
FROM  ?= 1
SIMP  ?= 2
STEPS ?= 2500
.PHONY: sim
sim:
	@bin=$$(mktemp -d)/sim.test && $(GO) test -c -o $$bin ./syncer && \
	per=$$(( ($(SEEDS) + $(SIMP) - 1) / $(SIMP) )); rc=0; pids=; \
	for i in $$(seq 0 $$(( $(SIMP) - 1 ))); do \
		from=$$(( $(FROM) + i * per )); n=$$(( $(SEEDS) - i * per < per ? $(SEEDS) - i * per : per )); \
		$$bin -test.run '^TestSim$$' -test.v -test.timeout 0 -sim.from $$from -sim.seeds $$n -sim.steps $(STEPS) \
			> $$bin.$$i.log 2>&1 & pids="$$pids $$!"; \
	done; \
	for p in $$pids; do wait $$p || rc=1; done; \
	cat $$bin.*.log; rm -rf $$(dirname $$bin); exit $$rc

# Every supported kube-apiserver minor (1.31 to 1.37), each built once per machine
# into its own folder: the core fv specs (label compat) against each, and the
# library's unit specs with the oldest client-go it builds with. Writes COMPAT.md;
# the specs take the machine's lock of heavy suites while they run.
.PHONY: compat
compat:
	$(GO) run ./fv/compat/cmd/compat -out COMPAT.md
