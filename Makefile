# amdkit - build, test, demo, GPU check.
#   make            build the CLI, the test runner and the benchmarks into build/
#   make demo       `amdkit info` + a few kernels checked against their CPU references (GPU or not)
#   make test       every check that needs no GPU (tests/run_all.sh); prints `N passed, N failed` last
#   make test-sanitize  the suites under ASan + UBSan, the threaded ones under TSan (part of make test)
#   make fuzz       the fuzz targets of tests/fuzz/, FUZZ_SECONDS (300) each (5 s each in make test)
#   make gpu-check  on a GPU machine: GPU suites + benchmarks, JSON into $$OUT (or build/gpu-check-PART); GPU_CHECK_PART=check|bench|all
#   make gen        re-embed kernels/*.hip into amdkit.h;  make gen-check: fail if amdkit.h is stale
#   make install PREFIX=DIR   amdkit.h, the amdkit command, kernels/*.hip and amdkit.pc under DIR
#                   (default /usr/local; DESTDIR for staging);  make uninstall PREFIX=DIR removes them
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
TEST_INC := tests/ak_test.h $(wildcard tests/ti_*.c) $(wildcard tests/at_*.h)

.PHONY: all test demo gpu-check clean install uninstall
all: $(BUILD)/amdkit_tests $(BUILD)/amdkit $(BUILD)/bench_ops $(BUILD)/bench_runtime $(BUILD)/bench_hotpath $(BUILD)/bench_attention $(BUILD)/tp_linear $(BUILD)/bench_comm $(BUILD)/bench_gemm $(BUILD)/bench_gemm_sweep $(BUILD)/bench_sweep

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

# ThreadSanitizer build of the same runner (the threaded suites run under it: tests/sanitize.sh)
TSAN := -fsanitize=thread
TEST_OBJ_TSAN := $(patsubst tests/%.c,$(BUILD)/obj-tsan/%.o,$(TEST_SRC))
$(BUILD)/obj-tsan/%.o: tests/%.c $(HDR) $(TEST_INC)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(WARN) -Werror -O1 -g $(TSAN) -c $< -o $@
$(BUILD)/amdkit_tests_tsan: tests/test_main.c $(TEST_OBJ_TSAN) $(HDR) $(TEST_INC)
	$(CC) -std=c99 $(WARN) -Werror -O1 -g $(TSAN) tests/test_main.c $(TEST_OBJ_TSAN) -o $@ $(LIBS)

# make test-sanitize: every cpu-backend suite under ASan + UBSan, the threaded
# suites (cache, pool, contexts, races, harden; 16+ threads) under TSan.
# `make test` runs the same script.
.PHONY: test-sanitize
test-sanitize:
	@bash tests/sanitize.sh

# make fuzz: every fuzz target (tests/fuzz/) for FUZZ_SECONDS each (libFuzzer
# where clang has it, else a mutation driver); `make test` runs them 5 s each.
FUZZ_SECONDS ?= 300
.PHONY: fuzz
fuzz:
	@bash tests/fuzz/run.sh $(FUZZ_SECONDS)

$(BUILD)/amdkit: examples/amdkit.c examples/demo.c examples/amdkit_run.c $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror $(CFLAGS) examples/amdkit.c examples/demo.c examples/amdkit_run.c -o $@ $(LIBS)

$(BUILD)/bench_runtime: bench/bench_runtime.c $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror $(CFLAGS) bench/bench_runtime.c -o $@ $(LIBS)

# the runtime hot paths (warm hit, disk hit, launch) through the cuda backend's code on a fake driver: no GPU needed
$(BUILD)/bench_hotpath: bench/bench_hotpath.c $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror $(CFLAGS) bench/bench_hotpath.c -o $@ $(LIBS)

# several devices: tensor-parallel example (checked against one device) and the collectives benchmark
$(BUILD)/tp_linear: examples/tp_linear.c $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror $(CFLAGS) examples/tp_linear.c -o $@ $(LIBS)

$(BUILD)/bench_comm: bench/bench_comm.c $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror $(CFLAGS) bench/bench_comm.c -o $@ $(LIBS)

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
# `make gen` embeds kernels/*.hip into amdkit.h (two regions: //>#akgen prelude ... and //>#akgen library ...);
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
$(BUILD)/bench_ops: bench/bench_ops.c bench/bench_common.h $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror -O2 bench/bench_ops.c -o $@ $(LIBS)


# bench/bench_sweep.c: shape sweep of the row-wise ops (rows x cols grid, checked against the CPU
# reference); `make sweep` on a GPU machine: amdkit + PyTorch eager / torch.compile + the heat maps
# (bench/sweep_device.sh, bench/NOTES.md "Shape sweep").
$(BUILD)/bench_sweep: bench/bench_sweep.c bench/bench_common.h $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror -O2 bench/bench_sweep.c -o $@ $(LIBS)
.PHONY: sweep
sweep:
	@bash bench/sweep_device.sh

# bench/bench_gemm.c: ak_gemm on the issue's shapes (JSON out); bench/peer_torch_gemm.py: the PyTorch peer.
$(BUILD)/bench_gemm: bench/bench_gemm.c bench/bench_common.h $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror -O2 bench/bench_gemm.c -o $@ $(LIBS)
# tests/ak_compile_matrix.c: every embedded family x targets through ak_compile_offline
# (tests/check_rocm64.sh runs it inside the ROCm 6.4 chroot).
$(BUILD)/ak_compile_matrix: tests/ak_compile_matrix.c $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror -O2 tests/ak_compile_matrix.c -o $@ $(LIBS)
$(BUILD)/ak_symbols: tests/ak_symbols.c $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror -O0 tests/ak_symbols.c -o $@ $(LIBS)
# tests/emu_llm.cpp: the kernels of norm.hip (residual form), llm.hip and layout.hip run in a host
# SIMT emulation (C++20 threads) against their CPU references, for wave 64 and wave 32 (make test).
EMU_SRC := tests/emu_llm.cpp tests/t_gpu_llm.c kernels/prelude.hip kernels/norm.hip kernels/llm.hip kernels/layout.hip
$(BUILD)/emu_llm_w%: $(EMU_SRC) $(HDR)
	@mkdir -p $(BUILD)
	$(CXX) -std=c++20 -O1 -Wall -Wextra -Werror -Wno-unknown-pragmas -Wno-unused-function -DAK_AMD=1 -DAK_WAVE=$* \
	  tests/emu_llm.cpp -o $@ -ldl -lpthread -lm
# bench/bench_attention.c: ak_attention prefill / decode timings (JSON out);
# bench/peer_attention.py times PyTorch SDPA (eager, torch.compile) on the same shapes.
$(BUILD)/bench_attention: bench/bench_attention.c bench/bench_common.h $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror -O2 bench/bench_attention.c -o $@ $(LIBS)

# bench/bench_gemm_sweep.c: ak_gemm over layouts, odd sizes, batches, decode, epilogues, each cell checked;
# bench/peer_torch_gemm_sweep.py times the same cells, bench/gemm_sweep_report.py joins them (bench/gemm_sweep.sh)
$(BUILD)/bench_gemm_sweep: bench/bench_gemm_sweep.c bench/bench_common.h $(HDR)
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror -O2 bench/bench_gemm_sweep.c -o $@ $(LIBS)

# --- install ------------------------------------------------------------------
# `pkg-config --cflags --libs amdkit` gives what an embedder needs: -I<prefix>/include -ldl -lpthread -lm.
PREFIX     ?= /usr/local
DESTDIR    ?=
bindir     := $(PREFIX)/bin
includedir := $(PREFIX)/include
datadir    := $(PREFIX)/share/amdkit
pcdir      := $(PREFIX)/lib/pkgconfig
AK_VERSION := $(shell sed -n 's/^\#define AK_VERSION_STRING "\(.*\)"/\1/p' amdkit.h)

install: $(BUILD)/amdkit
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(includedir) $(DESTDIR)$(datadir)/kernels $(DESTDIR)$(pcdir)
	install -m 755 $(BUILD)/amdkit $(DESTDIR)$(bindir)/amdkit
	install -m 644 amdkit.h $(DESTDIR)$(includedir)/amdkit.h
	install -m 644 kernels/*.hip $(DESTDIR)$(datadir)/kernels/
	printf 'prefix=%s\nincludedir=$${prefix}/include\n\nName: amdkit\nDescription: %s\nVersion: %s\nCflags: -I$${includedir}\nLibs: -ldl -lpthread -lm\n' \
	  '$(PREFIX)' 'single-header C toolkit for AMD GPUs (ROCm HIP + hipRTC), NVIDIA GPUs through HIP, and a cpu backend' \
	  '$(AK_VERSION)' > $(DESTDIR)$(pcdir)/amdkit.pc
	@echo "installed amdkit $(AK_VERSION) under $(DESTDIR)$(PREFIX)"

uninstall:
	rm -f $(DESTDIR)$(bindir)/amdkit $(DESTDIR)$(includedir)/amdkit.h $(DESTDIR)$(pcdir)/amdkit.pc
	rm -f $(addprefix $(DESTDIR)$(datadir)/kernels/,$(notdir $(wildcard kernels/*.hip)))
	-rmdir $(DESTDIR)$(datadir)/kernels $(DESTDIR)$(datadir) 2>/dev/null
	@echo "removed amdkit from $(DESTDIR)$(PREFIX)"
