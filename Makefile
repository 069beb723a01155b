# cuzk: `make` builds into build/ (binaries in build/bin/), `make test` runs
# every test (release, ASan/UBSan and TSan builds, the callgrind perf gate),
# `make demo` runs the main job,
# `make bench` the micro-benchmarks.  Missing Debian packages are installed
# by scripts/deps.sh (as root), or it prints the exact apt-get line.
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
WERROR  ?= $(if $(CI),ON,OFF)

.PHONY: all deps build build-asan build-tsan install test test-skips-reset test-release test-asan test-tsan test-npm test-fuzz test-perf test-params run-release run-ctest run-cli run-daemon run-page run-quiet run-asan run-tsan run-npm run-fuzz run-perf perf-baseline demo bench format clean

# Every check that did not run is appended here (tests/skip.sh, the C test
# harness); make test lists them at the end.  Exit code 77 = skipped in ctest.
export CUZK_SKIP_LOG ?= $(abspath $(BUILD))/skipped.log

all: build

deps:
	@scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCUZK_WERROR=$(WERROR) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	@cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUZK_SANITIZE=ON -DCUZK_VERIFY=ON -DCUZK_WERROR=$(WERROR) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD)-asan -j $(JOBS)

# installs cuzk-daemon, `cuzk` (link), cuzk-bench and share/cuzk/cuzk.service
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

# two suites at a time from one queue (scripts/make-test.sh lists it);
# each test-X target below runs one suite alone, run-X without its build
# (every part of it, even after one failed; exit 1 if any did)
test: test-skips-reset
	@rc=0; MAKE="$(MAKE)" BUILD=$(BUILD) JOBS=$(JOBS) scripts/make-test.sh || rc=1; \
	tests/skip-summary.sh "$(CUZK_SKIP_LOG)"; \
	if [ $$rc = 0 ]; then echo "make test: all suites passed"; else echo "make test: FAILED"; exit 1; fi

test-skips-reset:
	@mkdir -p $(BUILD) && : >"$(CUZK_SKIP_LOG)"

test-release: build run-release
run-release:
	@rc=0; for t in ctest cli daemon page; do $(MAKE) --no-print-directory run-$$t || rc=1; done; exit $$rc
# the release build's four suites, one by one (make test runs them as steps)
run-ctest:
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
run-cli:
	@scripts/cli-tests.sh $(BUILD)/bin
run-daemon:
	@scripts/daemon-tests.sh $(BUILD)/bin
run-page:
	@scripts/page-tests.sh $(BUILD)/bin
# the daemon's latency-under-load check (TestRequestMemory), which make test
# runs alone before its queue
run-quiet:
	@CUZK_DAEMON_TESTS=test_daemon scripts/daemon-tests.sh $(BUILD)/bin -k TestRequestMemory

# CUZK_MSM_NO_IFMA: the scalar MSM under ASan except in test_msm_ifma
# (tests/CMakeLists.txt says why); tests/lsan-grpc.supp: c-ares's leak
# inside gRPC's name resolution, nothing of ours
test-asan: build-asan run-asan
run-asan:
	@rc=0; \
	(cd $(BUILD)-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)) || rc=1; \
	CUZK_MSM_NO_IFMA=1 ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(abspath tests/lsan-grpc.supp):print_suppressions=0 scripts/daemon-tests.sh $(BUILD)-asan/bin || rc=1; \
	exit $$rc

# ThreadSanitizer over the engine tests and the daemon tests (the threaded
# parts: test_tls and test_ops, TLS setup and metric names, run in the
# release and ASan passes); only those targets are built (every tests/test_engine*.c: ctest
# -R ^test_engine must find each one built; docs/engine.md "Tests")
TSAN_TARGETS = $(patsubst tests/%.c,%,$(wildcard tests/test_engine*.c)) cuzk-daemon cuzk-bench
build-tsan: deps
	@cmake -S . -B $(BUILD)-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUZK_TSAN=ON -DCUZK_WERROR=$(WERROR) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD)-tsan -j $(JOBS) --target $(TSAN_TARGETS)

test-tsan: build-tsan run-tsan
run-tsan:
	@rc=0; \
	(cd $(BUILD)-tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(abspath tests/tsan.supp)" ctest --output-on-failure -j $(JOBS) -R '^test_engine') || rc=1; \
	CUZK_DAEMON_TESTS="test_daemon test_curio test_access test_faults" TSAN_OPTIONS="halt_on_error=1 suppressions=$(abspath tests/tsan.supp)" scripts/daemon-tests.sh $(BUILD)-tsan/bin || rc=1; \
	exit $$rc

# independent references that need node (skipped, with the reason, without it)
test-npm: build run-npm
run-npm:
	@rc=0; \
	scripts/npm-checks.sh || rc=1; \
	tests/snarkjs/run.sh $(BUILD)/bin || rc=1; \
	exit $$rc

# libFuzzer harnesses: replay of tests/fuzz/corpus, then briefly each
# (skipped, with the reason, without clang; a failure under CI=true)
FUZZ_SECONDS ?= 4
test-fuzz: build run-fuzz
run-fuzz:
	@tests/fuzz/run.sh $(FUZZ_SECONDS) $(BUILD)/bin

# Performance regression gate (tests/perf/gate.py): callgrind instruction
# counts of the hot paths against tests/perf/baseline.json; +3 % fails with
# the per-function difference.  `make perf-baseline` rewrites the baseline
# (commit it saying why the counts moved).
test-perf: build run-perf
run-perf:
	@python3 tests/perf/gate.py --bin $(BUILD)/bin --jobs $(JOBS)

# the cached 2 KiB PoRep and SnapDeals TEST params (cli and daemon tests)
test-params: build
	@scripts/test-params.sh $(BUILD)/bin

perf-baseline: build
	@python3 tests/perf/gate.py --bin $(BUILD)/bin --jobs $(JOBS) --update

demo: build
	@scripts/demo.sh $(BUILD)/bin

bench: build
	@$(BUILD)/bin/cuzk-bench micro

format:
	@clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan
