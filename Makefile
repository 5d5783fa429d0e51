# The two commands of the README:
#   make demo   set up, build, compile the example kernels and the collective matmul's
#               benchmark bundle; on 2+ GPUs run, check and benchmark them
#   make test   set up, build, run every lit and unit test
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all setup configure build demo test clean

all: build

setup:
	@bash scripts/setup.sh

$(BUILD_DIR)/build.ninja:
	@$(MAKE) --no-print-directory setup
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm \
	  -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ $(CMAKE_FLAGS)

configure: $(BUILD_DIR)/build.ninja

build: setup configure
	ninja -C $(BUILD_DIR) -j $(JOBS)

demo: build
	@JOBS=$(JOBS) bash scripts/demo.sh $(BUILD_DIR)

test: build
	@bash scripts/test.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
