# Thin wrapper around the install script and CMake; see README.md.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
OUT ?= demo-out

.PHONY: deps configure build test demo bench clean

deps:
	./scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

demo: build
	./scripts/demo.sh $(BUILD_DIR)/graphcost $(OUT)

bench: build
	./scripts/bench.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
