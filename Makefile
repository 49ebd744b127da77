# jetstream-chaos. `make help` lists the targets.
GO      ?= go
ARGS    ?=
# testcontainers-go: Ryuk needs a pulled image (none can be pulled here) and,
# without the override, it may dial the machine's default gateway.
export TESTCONTAINERS_RYUK_DISABLED := true
export TESTCONTAINERS_HOST_OVERRIDE := localhost
COMPOSE := $(shell docker compose version >/dev/null 2>&1 && echo "docker compose" || echo docker-compose)

.PHONY: help run build image test unit integration bench vet nightly nightly-shard nightly-merge soak releases compose-up compose-down clean

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

run: ## the main job: kv-update, Direct Get on and off side by side (ARGS="..." adds flags)
	$(GO) run ./cmd/chaos run --workload kv-update $(ARGS)

build: ## a static chaos binary in bin/
	CGO_ENABLED=0 $(GO) build -o bin/chaos ./cmd/chaos

IMAGE ?= jetstream-chaos/chaos:dev
image: build ## the chaos image, FROM scratch with bin/chaos alone; nothing is pulled (IMAGE=name:tag)
	docker build -t $(IMAGE) .

# The suites follow internal/testenv's rule: a test that needs a cluster,
# Docker, FUSE, Chromium or the module proxy has Integration in its name and
# skips under -short (internal/testenv's TestMakefileSelectsTheRule holds
# these lines to it). -p 3: three packages at a time, and within a package
# the integration tests that own a cluster run in pairs (t.Parallel, go
# test's default -parallel of 2 on 2 cores): they mostly wait on real
# clusters (one at a time, the nemesis suite used 16 % of the cores).
# More (-parallel 3) made two positive controls of load-sensitive server
# bugs miss; the v2.12.0 one runs alone in its package (README, Tests).
# go test starts packages in the order they are named: the longest first
# (wall times under -p 3 in the README, Tests), so that none of them starts
# last and ends the run alone; ./... adds the rest once each. -vet=off: the
# vet prerequisite has already run go vet's full set of analyzers, of which
# go test's own vet step runs a subset again (11 s of a cold CI's compile).
SLOW_FIRST := ./nemesis/ ./workloads/schedule/ ./cmd/chaos/ ./repro/partitionheal/ ./cluster/docker/ ./workloads/queue/ ./run/ ./workloads/catchup/ ./workloads/sources/ ./examples/
test: vet ## every test without -short: the unit suite at full size and the integration suite
	$(GO) test -p 3 -count=1 -vet=off -timeout 60m $(SLOW_FIRST) ./...

unit: ## the fast unit suite (-short): nothing outside the test process
	$(GO) test -short -count=1 ./...

integration: ## the tests named Integration: real clusters, Docker, FUSE, Chromium, the module proxy
	$(GO) test -p 3 -count=1 -timeout 60m -run 'Integration' $(SLOW_FIRST) ./...

bench: ## benchmarks (compare runs with benchstat)
	$(GO) test -run '^$$' -bench . -benchmem ./...

vet: ## gofmt and go vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

NIGHTLY_STORE  ?= store/nightly
NIGHTLY_TIME   ?= 60s
NIGHTLY_FAULTS := partition-one partition-leader partition-halves kill restart pause stepdown wipe partition-leader+kill
# The two runs of the nightly, their flags shared by nightly and its
# sharded form.
NIGHTLY_HEALTHY = --runtime docker --direct-get off --time-limit $(NIGHTLY_TIME) --nemesis-interval 10s \
	  --nemesis none $(foreach f,$(NIGHTLY_FAULTS),--nemesis $(f))
NIGHTLY_CONTROL = --runtime docker --direct-get on --nemesis none --time-limit $(NIGHTLY_TIME) --expect direct-get-on=stale-reads
nightly: build ## CI nightly: Direct Get off must stay valid under every fault; Direct Get on must still show its stale reads
	bin/chaos run --store $(NIGHTLY_STORE) $(NIGHTLY_HEALTHY); h=$$?; \
	bin/chaos run --store $(NIGHTLY_STORE) $(NIGHTLY_CONTROL); c=$$?; \
	echo "nightly: healthy matrix exit $$h, Direct Get on control exit $$c"; test $$h -eq 0 -a $$c -eq 0

# The nightly over N machines: each runs nightly-shard NIGHTLY_SHARD=I/N with
# one NIGHTLY_SEED, each run in its own store (healthy/, control/: a merge
# joins the shards of one run); nightly-merge then joins the stores found
# under NIGHTLY_SHARDS (one folder per shard, as CI downloads them) into
# NIGHTLY_STORE and exits with the worse verdict.
NIGHTLY_SHARD  ?= 1/1
NIGHTLY_SEED   ?= 1
NIGHTLY_SHARDS ?= shards
nightly-shard: build ## one slice of the nightly: NIGHTLY_SHARD=I/N, the same NIGHTLY_SEED on every machine
	bin/chaos run --store $(NIGHTLY_STORE)/healthy --shard $(NIGHTLY_SHARD) --seed $(NIGHTLY_SEED) $(NIGHTLY_HEALTHY); h=$$?; \
	bin/chaos run --store $(NIGHTLY_STORE)/control --shard $(NIGHTLY_SHARD) --seed $(NIGHTLY_SEED) $(NIGHTLY_CONTROL); c=$$?; \
	echo "nightly shard $(NIGHTLY_SHARD): healthy matrix exit $$h, Direct Get on control exit $$c"; test $$h -eq 0 -a $$c -eq 0

# A run folder of a shard is a folder under <shard>/healthy/ or
# <shard>/control/; latest (a link, or a copy once uploaded) is skipped.
nightly-merge: build ## join the shards' stores under NIGHTLY_SHARDS into NIGHTLY_STORE and report each run
	runs() { find $(NIGHTLY_SHARDS) -mindepth 3 -maxdepth 3 -type d -path "*/$$1/*" ! -name latest | sort; }; \
	bin/chaos report --merge --store $(NIGHTLY_STORE) $$(runs healthy); h=$$?; \
	bin/chaos report --merge --store $(NIGHTLY_STORE) $$(runs control); c=$$?; \
	echo "nightly merged: healthy matrix exit $$h, Direct Get on control exit $$c"; test $$h -eq 0 -a $$c -eq 0

SOAK_RUNS  ?= 10
SOAK_TIME  ?= 10s
SOAK_STORE ?= store/soak
soak: build ## false-positive campaign: SOAK_RUNS healthy cells per runtime (Direct Get off, no faults); any anomaly fails
	bin/chaos run --runtime local --store $(SOAK_STORE) --direct-get off --nemesis none --time-limit $(SOAK_TIME) --runs $(SOAK_RUNS); l=$$?; \
	bin/chaos run --runtime docker --store $(SOAK_STORE) --direct-get off --nemesis none --time-limit $(SOAK_TIME) --runs $(SOAK_RUNS); d=$$?; \
	echo "soak: local exit $$l, docker exit $$d ($(SOAK_RUNS) healthy runs each)"; test $$l -eq 0 -a $$d -eq 0

# The release matrix: docs/releases.jsonl keeps every cell run it was
# given, so a clone without a store renders it alone; a STORE that exists
# adds its runs (a missing one is left out, not an error).
STORE ?= store
releases: ## docs/releases.md, the release matrix, from docs/releases.jsonl and the runs of STORE (store by default) when it exists
	$(GO) run ./cmd/chaos releases $(wildcard $(STORE))

compose-up: ## the same 3-node cluster with docker compose (ports 4222-4224, 8222-8224 on 127.0.0.1)
	CGO_ENABLED=0 GOBIN=$(CURDIR)/compose $(GO) install github.com/nats-io/nats-server/v2@$$($(GO) list -m -f '{{.Version}}' github.com/nats-io/nats-server/v2)
	cd compose && $(COMPOSE) up -d --build

compose-down: ## stop the compose cluster and drop its volumes
	cd compose && $(COMPOSE) down -v

clean: ## remove built binaries (runs in store/ are kept)
	rm -rf bin compose/nats-server
