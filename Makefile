# The two commands a newcomer needs: `make run` and `make test`. Both install what they need.
NPM ?= npm
ARGS ?=

.PHONY: all deps etcd python-client build typecheck lint run test test-unit test-integration fuzz bench bench-wire clean

all: build

node_modules/.package-lock.json: package.json package-lock.json
	# npm ci: exactly the committed lock (complete, other platforms' optional binaries included), never rewritten.
	$(NPM) ci --no-audit --no-fund
	@touch $@

deps: node_modules/.package-lock.json etcd

etcd:
	@./scripts/ensure-debian-package.sh etcd-server sh -c 'command -v etcd'

## python-client: the official Kubernetes Python client (Debian python3-kubernetes), for its integration test
python-client:
	@./scripts/ensure-debian-package.sh python3-kubernetes /usr/bin/python3 -c 'import kubernetes'

build: node_modules/.package-lock.json
	$(NPM) run build

typecheck: node_modules/.package-lock.json
	$(NPM) run typecheck

## lint: the folder boundaries of DESIGN.md (dependency-cruiser)
lint: node_modules/.package-lock.json
	$(NPM) run lint

## run: start the server on the embedded default (etcd under ./.data, HTTPS on 6443, kubeconfig at ./.data/admin.kubeconfig)
run: deps build
	node dist/src/main.js $(ARGS)

## test: type-check, then every unit and integration test (real etcd, real kubectl)
test: deps python-client typecheck lint build
	$(NPM) test

test-unit: node_modules/.package-lock.json
	$(NPM) test -- test/unit

test-integration: deps python-client
	$(NPM) test -- test/integration test/e2e

## fuzz: the property-based fuzz tests of test/fuzz for minutes (FUZZ_RUNS per property; FUZZ_SEED=n for another seed)
FUZZ_RUNS ?= 5000
fuzz: deps
	FUZZ_RUNS=$(FUZZ_RUNS) $(NPM) test -- test/fuzz

## bench: own etcd (fsync on) + server child; watch latency, memory per object, list cache vs etcd (bench/README.md)
bench: deps build
	$(NPM) run bench -- $(ARGS)

## bench-wire: encode+decode cost per object and 1,000-item list size for JSON, protobuf and CBOR (in-process)
bench-wire: node_modules/.package-lock.json
	$(NPM) exec -- tsc -p bench/tsconfig.json; node dist/bench/wire-formats.js $(ARGS)

clean:
	rm -rf dist coverage
