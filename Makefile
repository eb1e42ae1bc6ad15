# Hangar: the two commands a newcomer needs are `make dev` and `make test`.
# Every tool is pinned and installed by this Makefile into ./bin (git-ignored): a fresh
# machine needs only Go, Node/npm and apt.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

ROOT    := $(abspath .)
BIN     := $(ROOT)/bin
export PATH := $(BIN):$(PATH)
export GOFLAGS := -buildvcs=false

BUF        := $(ROOT)/tools/node_modules/@bufbuild/buf-linux-x64/bin/buf
K6_VERSION := v1.8.1
K6         := $(BIN)/k6
SERVICES   := catalog identity checkout payments allocation geo notifications

# Nx and friends, for the web targets.
export NX_DAEMON := false
export NX_NO_CLOUD := true
export NX_TUI := false

.PHONY: help
help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  \033[1m%-16s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# ---------------------------------------------------------------------------- tools
$(BIN)/.go-tools: tools/go.mod tools/go.sum
	@mkdir -p $(BIN)
	@echo "installing pinned Go tools into bin/ (protoc plugins, staticcheck)"
	cd tools && GOBIN=$(BIN) go install tool
	@touch $@

$(BUF): tools/package.json tools/package-lock.json
	@echo "installing pinned buf into tools/node_modules"
	cd tools && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# k6 is kept in the machine's tool cache (scripts/tool-cache.sh) and linked into bin/.
$(K6):
	@BIN=$(BIN); source scripts/tool-cache.sh; \
	  build() { echo "building k6 $(K6_VERSION) into $$TOOL_CACHE (about 3 minutes, once per machine)"; go_install "$$1" go.k6.io/k6@$(K6_VERSION); }; \
	  cached_tool k6 $(K6_VERSION) build

.PHONY: tools
tools: $(BIN)/.go-tools $(BUF) ## Install the pinned code-generation and lint tools

# ---------------------------------------------------------------------------- contracts
.PHONY: generate
generate: tools ## Regenerate gen/ (Go, gateway, OpenAPI 2 and 3) and the web API types from proto/
	$(BUF) lint
	$(BUF) generate
	scripts/gen-api.sh

.PHONY: check-generated
check-generated: tools ## Fail when regenerating would change the committed gen/ or web API types
	scripts/check-generated.sh

# ---------------------------------------------------------------------------- quality
.PHONY: lint
# Every Go module of the repo: the root one and the Helm checks' own (k8s.io dependencies
# kept out of the services' go.mod).
GO_MODULES := . deploy/helm/check deploy/images

lint: tools ## buf lint, gofmt, go vet, staticcheck (every Go module), the layer and no-globals check, the web linter
	$(BUF) lint
	@out=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go')); if [[ -n "$$out" ]]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	for m in $(GO_MODULES); do (cd $$m && go vet ./... && $(BIN)/staticcheck ./...); done
	go run ./cmd/layercheck
	scripts/web-lint.sh

.PHONY: images
# The web image carries the production web build: scripts/web-build.sh needs the store's
# outside links (HANGAR_APP_STORE_URL, HANGAR_SALES_EMAIL) or HANGAR_DEV_MODE=true.
images: ## OCI image archives of every deployable into bin/images (no Docker daemon, no registry; cached by digest)
	scripts/web-build.sh
	cd deploy/images && GOWORK=off go run ./cmd/hangar-images -root $(ROOT) -out $(BIN)/images

.PHONY: build
build: ## Build every service binary and the dev runner into bin/
	@mkdir -p $(BIN)
	for s in $(SERVICES); do CGO_ENABLED=0 go build -trimpath -o $(BIN)/$$s ./services/$$s/cmd/$$s; done
	go build -o $(BIN)/hangar-dev ./cmd/hangar-dev

# ---------------------------------------------------------------------------- run
.PHONY: dev
dev: ## Run the whole store at http://localhost:8080 (Ctrl-C stops it)
	scripts/ensure-postgres.sh
	@if [[ -x scripts/web-build.sh && -f web/package.json ]]; then HANGAR_DEV_MODE=true scripts/web-build.sh; fi
	go build -o $(BIN)/hangar-dev ./cmd/hangar-dev
	exec $(BIN)/hangar-dev

# ---------------------------------------------------------------------------- test
.PHONY: test
test: ## Run every test: generated-code drift, lint, Go tests (race, real PostgreSQL), Helm, rules, Prometheus, cluster, the real node, web
	scripts/ensure-postgres.sh
	$(MAKE) --no-print-directory check-generated
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory test-go
	$(MAKE) --no-print-directory helm-check
	$(MAKE) --no-print-directory test-rules
	$(MAKE) --no-print-directory test-prometheus
	$(MAKE) --no-print-directory test-cluster
	$(MAKE) --no-print-directory test-k8s
	$(MAKE) --no-print-directory test-web

.PHONY: test-go
test-go: ## Go unit and integration tests with the race detector
	go test -race -count=1 -timeout 20m ./...
	cd deploy/images && GOWORK=off go test -count=1 ./...

.PHONY: test-fast
# The tier to run before every commit: the same Go tests against real PostgreSQL and the
# in-process broker, without the race detector (it costs several times the CPU) and with
# -short (the two multi-service broker journeys of checkout's renewals stay in test-go).
# No chart, cluster, browser or load parts.
test-fast: ## Go unit and adapter tests, real PostgreSQL, no race detector, no cluster/web/load parts (7 min warm on the shared 2-core machine: README, "How long the tests take")
	scripts/ensure-postgres.sh
	go test -count=1 -short -parallel 4 -timeout 10m ./...

.PHONY: lint-migrations
lint-migrations: ## The expand/contract lint over every service's migrations (also in test-go)
	go test -count=1 -run 'TestEveryMigrationRolls|TestLint' ./internal/platform/db/

.PHONY: bench
bench: ## Go benchmarks (catalogue hot path against a bare handler; checkout's submit and payments' tokenize + charge against real PostgreSQL; the inbox consumer through kfake)
	go test -run '^$$' -bench . -benchmem ./services/catalog/...
	go test -run '^$$' -bench InboxConsumer -benchtime 3000x ./internal/platform/kafka/
	go test -run '^$$' -bench Submit -benchmem -benchtime 200x ./services/checkout/app/
	go test -run '^$$' -bench Charge -benchmem -benchtime 300x ./services/payments/app/

.PHONY: test-web
test-web: ## Web unit tests and browser tests against the real stack
	@if [[ -x scripts/web-test.sh && -f web/package.json ]]; then scripts/web-test.sh && scripts/web-e2e.sh; else echo "test-web: no web workspace yet"; fi

.PHONY: helm-check
helm-check: ## Lint and render the chart, strictly validate every object offline
	@if [[ -x scripts/helm-check.sh ]]; then scripts/helm-check.sh; else echo "helm-check: no chart check yet"; exit 1; fi

.PHONY: test-rules
test-rules: ## promtool check + unit tests of the chart's SLO and alert rules (Debian's prometheus via apt)
	scripts/test-rules.sh

.PHONY: test-prometheus
test-prometheus: ## Debian's prometheus scrapes a dev stack with the chart's rules: all targets up, all rules evaluate
	scripts/test-prometheus.sh

.PHONY: test-cluster
test-cluster: ## Install, upgrade (within the PDBs) and roll back the chart on a loopback kube-apiserver with kwok nodes
	scripts/test-cluster.sh

.PHONY: test-k8s
# Part of `make test`. As root (containers, mounts, iptables); its tools come from the machine's
# tool cache (scripts/tool-cache.sh), so a clean clone builds none of them twice.
test-k8s: ## The chart on one real node (containerd, kubelet, kube-proxy, CoreDNS, Traefik): pods Ready, purchases through the Ingress, pods deleted and checkout rolled under k6 load with 0 failed requests, the databases reconciled, Prometheus on Kubernetes discovery
	scripts/ensure-postgres.sh
	scripts/test-k8s.sh

# ---------------------------------------------------------------------------- load
.PHONY: k6
k6: $(K6) ## Build k6 into bin/ (pinned version; once)

.PHONY: loadtest-checkout
# k6 shares the store's two cores: GOGC 400 spends ~8% less of its CPU collecting garbage,
# and one P (GOMAXPROCS 1) a fifth to a third less again: with two, an idle P is woken and spins
# for every response (futex, work stealing). 200 journeys/s keep that one P under a third busy.
loadtest-checkout: $(K6) ## k6 purchase journey (preview, tokenize, submit, receipt) against make dev (SHAPE=smoke|rate)
	GOGC=$${GOGC:-400} GOMAXPROCS=$${K6_GOMAXPROCS:-1} $(K6) run -e SHAPE=$${SHAPE:-smoke} -e BASE_URL=$${BASE_URL:-http://localhost:8080} -e FIELDS_URL=$${FIELDS_URL:-http://localhost:8081} loadtest/checkout.js

.PHONY: loadtest-season
loadtest-season: $(K6) ## k6 renewal-season traffic mix, the journeys' SLOs as thresholds, against make dev (DURATION=60s SCALE=1)
	$(K6) run -e BASE_URL=$${BASE_URL:-http://localhost:8080} -e FIELDS_URL=$${FIELDS_URL:-http://localhost:8081} -e DURATION=$${DURATION:-60s} -e SCALE=$${SCALE:-1} loadtest/renewal-season.js

.PHONY: chaos
chaos: ## Season load on production timings, 2 replicas each: one replica of each service dies, kills inside submits, broker and PostgreSQL crash; reconcile captures, charges, orders, subscriptions, e-mails, events one to one (ARGS=--short)
	scripts/chaos.sh $${ARGS:-}

.PHONY: loadtest-smoke
loadtest-smoke: $(K6) ## k6 smoke run of loadtest/catalog.js against make dev (BASE_URL=http://localhost:8080)
	$(K6) run -e SHAPE=smoke -e BASE_URL=$${BASE_URL:-http://localhost:8080} loadtest/catalog.js

.PHONY: loadtest
loadtest: $(K6) ## k6 load run of loadtest/catalog.js (SHAPE=load|stress|spike|soak)
	$(K6) run -e SHAPE=$${SHAPE:-load} -e BASE_URL=$${BASE_URL:-http://localhost:8080} loadtest/catalog.js
