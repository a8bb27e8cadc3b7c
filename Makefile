# Top-level entry points. `make test` and `make demo` are all a fresh Debian 12 machine needs.
BUILD      ?= build
JOBS       ?= $(shell nproc)
NDP_WERROR ?= OFF
CMAKE_ARGS ?=
MODEL      ?=
NDP        := $(BUILD)/sw/cli/ndp

.PHONY: all deps configure build test demo lint formal synth bench fuzz asan clean

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
	@if [ -x scripts/run-fuzz.sh ]; then bash scripts/run-fuzz.sh short; fi
	@if [ -f rtl/Makefile.inc ]; then $(MAKE) --no-print-directory lint formal; fi

demo: build
	@bash scripts/demo.sh $(NDP) $(MODEL)

bench: build
	@bash scripts/bench.sh $(BUILD)

fuzz: deps
	bash scripts/run-fuzz.sh long
	bash scripts/seed-sweep.sh $(BUILD) 3

asan: deps
	$(MAKE) test BUILD=build-asan CMAKE_ARGS="-DNDP_SANITIZE=address,undefined -DNDP_BUILD_RTL=OFF -DNDP_BENCH=OFF"

-include rtl/Makefile.inc
-include sw/runtime/Makefile.inc

clean:
	rm -rf $(BUILD) build-asan build-fuzz
