# amdkit - build, test, demo, GPU check.
#   make            build the CLI, the test runner and the benchmarks into build/
#   make demo       `amdkit info` + a few kernels checked against their CPU references (GPU or not)
#   make test       every check that needs no GPU (tests/run_all.sh); prints `N passed, N failed` last
#   make gpu-check  on a GPU machine: GPU suites + benchmarks, JSON into $$OUT (or build/gpu-check)
#   make gen        re-embed kernels/*.hip into amdkit.h;  make gen-check: fail if amdkit.h is stale
CC      ?= cc
CXX     ?= c++
BUILD   := build
WARN    := -Wall -Wextra -pedantic
CFLAGS  ?= -O2 -g
LIBS    := -ldl -lpthread -lm
HDR     := amdkit.h $(wildcard parts/*.inc)
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

TEST_SRC := $(wildcard tests/t_*.c)
TEST_OBJ := $(patsubst tests/%.c,$(BUILD)/obj/%.o,$(TEST_SRC))
TEST_OBJ_SAN := $(patsubst tests/%.c,$(BUILD)/obj-san/%.o,$(TEST_SRC))
TEST_INC := tests/ak_test.h $(wildcard tests/ti_*.c)

.PHONY: all test demo gpu-check clean
all: $(BUILD)/amdkit_tests $(BUILD)/amdkit $(BUILD)/bench_ops $(BUILD)/bench_runtime $(BUILD)/bench_gemm

$(BUILD)/obj/%.o: tests/%.c $(HDR) $(TEST_INC)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(WARN) -Werror $(CFLAGS) -c $< -o $@

$(BUILD)/amdkit_tests: tests/test_main.c $(TEST_OBJ) $(HDR) $(TEST_INC)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror $(CFLAGS) tests/test_main.c $(TEST_OBJ) -o $@ $(LIBS)

$(BUILD)/obj-san/%.o: tests/%.c $(HDR) $(TEST_INC)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(WARN) -Werror -O1 -g $(SAN) -c $< -o $@

$(BUILD)/amdkit_tests_asan: tests/test_main.c $(TEST_OBJ_SAN) $(HDR) $(TEST_INC)
	$(CC) -std=c99 $(WARN) -Werror -O1 -g $(SAN) tests/test_main.c $(TEST_OBJ_SAN) -o $@ $(LIBS)

$(BUILD)/amdkit: examples/amdkit.c examples/demo.c $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror $(CFLAGS) examples/amdkit.c examples/demo.c -o $@ $(LIBS)

$(BUILD)/bench_runtime: bench/bench_runtime.c $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror $(CFLAGS) bench/bench_runtime.c -o $@ $(LIBS)

test:
	@bash tests/run_all.sh

demo: $(BUILD)/amdkit
	./$(BUILD)/amdkit info
	./$(BUILD)/amdkit demo

gpu-check:
	@bash tests/gpu_check.sh

clean:
	rm -rf $(BUILD)

# --- kernel library: embedded sources and benchmarks  --------------------
# `make gen` embeds kernels/*.hip into amdkit.h (between //>#akgen and //<#akgen);
# `make gen-check` regenerates into a copy and fails when amdkit.h is stale (CI).
.PHONY: gen gen-check
$(BUILD)/akgen: tools/akgen.c
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror -O2 tools/akgen.c -o $@

gen: $(BUILD)/akgen
	./$(BUILD)/akgen amdkit.h kernels

gen-check: $(BUILD)/akgen
	@mkdir -p $(BUILD)/gen-check
	cp amdkit.h $(BUILD)/gen-check/amdkit.h
	./$(BUILD)/akgen $(BUILD)/gen-check/amdkit.h kernels
	@diff -u amdkit.h $(BUILD)/gen-check/amdkit.h > $(BUILD)/gen-check/diff.txt || \
	  { head -n 60 $(BUILD)/gen-check/diff.txt; echo "gen-check: amdkit.h is stale, run 'make gen'"; exit 1; }
	@echo "gen-check: amdkit.h matches kernels/"

# bench/bench_ops.c: KernelBench-style timing of the kernel library (JSON out).
#   ./build/bench_ops bench/results/ops_<device>.json     (--quick: small shapes, any backend)
$(BUILD)/bench_ops: bench/bench_ops.c $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror -O2 bench/bench_ops.c -o $@ $(LIBS)


# bench/bench_gemm.c: ak_gemm on the issue's shapes (JSON out); bench/peer_torch_gemm.py: the PyTorch peer.
$(BUILD)/bench_gemm: bench/bench_gemm.c $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror -O2 bench/bench_gemm.c -o $@ $(LIBS)
