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

# `build` (and so `demo`) compiles only the program; `test` and `bench` add their own programs.
build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target graphcost

test: build
	cmake --build $(BUILD_DIR) -j $(JOBS) --target graphcost_tests graphcost_torch_tests \
		graphcost_dist_tests graphcost_serve_tests graphcost_python_module
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

demo: build
	./scripts/demo.sh $(BUILD_DIR)/graphcost $(OUT)

bench: build
	cmake --build $(BUILD_DIR) -j $(JOBS) --target graphcost_benches
	./scripts/bench.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
