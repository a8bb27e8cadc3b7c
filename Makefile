# Top-level entry points. `make test` and `make demo` are all a fresh Debian 12 machine needs.
BUILD      ?= build
JOBS       ?= $(shell nproc)
NDP_WERROR ?= OFF
NDP_ASAN_TEST ?= 1
CMAKE_ARGS ?=
MODEL      ?=
NDP        := $(BUILD)/sw/cli/ndp

.PHONY: all deps configure build test demo lint formal synth netlist lanes bench fuzz asan asan-test clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DNDP_WERROR=$(NDP_WERROR) $(CMAKE_ARGS)

configure: deps
	cmake -S . -B $(BUILD) -G Ninja -DNDP_WERROR=$(NDP_WERROR) $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@if [ "$(NDP_ASAN_TEST)" != 0 ]; then $(MAKE) --no-print-directory asan-test; fi
	@if [ -x scripts/run-fuzz.sh ]; then bash scripts/run-fuzz.sh short; fi
	@if [ -f rtl/Makefile.inc ]; then $(MAKE) --no-print-directory lint formal; fi

# The software tests again under ASan + UBSan (no RTL, no benchmarks, no QEMU guests): `make asan`,
# and part of `make test` (NDP_ASAN_TEST=0 skips it there). Without -Werror: g++ 12 warns falsely (maybe-uninitialized
# inside std::regex and std::function) when the sanitizers are on.
ASAN_BUILD ?= build-asan
asan-test:
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DNDP_WERROR=OFF -DNDP_SANITIZE=address,undefined \
	    -DNDP_BUILD_RTL=OFF -DNDP_BENCH=OFF $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) -LE qemu

demo: build
	@bash scripts/demo.sh $(NDP) $(MODEL)

bench: build
	@bash scripts/bench.sh $(BUILD)

fuzz: deps
	bash scripts/run-fuzz.sh long
	bash scripts/seed-sweep.sh $(BUILD) 3

asan: deps
	$(MAKE) --no-print-directory asan-test

-include rtl/Makefile.inc
-include sw/runtime/Makefile.inc

clean:
	rm -rf $(BUILD) build-asan build-fuzz
