# cuzk: `make` builds into build/ (binaries in build/bin/), `make test` runs
# every test (release + ASan/UBSan builds), `make demo` runs the main job,
# `make bench` the micro-benchmarks.  Missing Debian packages are installed
# by scripts/deps.sh (as root), or it prints the exact apt-get line.
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
WERROR  ?= $(if $(CI),ON,OFF)

.PHONY: all deps build test test-release test-asan test-npm demo bench format clean

all: build

deps:
	@scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCUZK_WERROR=$(WERROR) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	@cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUZK_SANITIZE=ON -DCUZK_VERIFY=ON -DCUZK_WERROR=$(WERROR) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD)-asan -j $(JOBS)

test: test-release test-asan test-npm
	@echo "make test: all suites passed"

test-release: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@scripts/cli-tests.sh $(BUILD)/bin

test-asan: build-asan
	@cd $(BUILD)-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

test-npm:
	@scripts/npm-checks.sh

demo: build
	@scripts/demo.sh $(BUILD)/bin

bench: build
	@$(BUILD)/bin/cuzk-bench micro

format:
	@clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(BUILD)-asan
