# amdkit - build, test, demo, GPU check.
#   make            build the CLI, the test runner, the examples and the benchmarks into build/
#   make demo       `amdkit info` + a few kernels checked against their CPU references (GPU or not)
#   make test       the quick tier, before every commit (a few minutes on 2 cores, no GPU): build, the C suites on
#                   the cpu backend with a representative compile matrix of the real offline compilers, the host
#                   emulation of kernels, header builds, type checks, gen-check, the command-line checks;
#                   prints `N passed, N failed` last (tests/run_all.sh quick)
#   make check      the full tier, what CI runs (.ci/run): make test's steps with every kernel family x every
#                   target, plus the ROCm 6.4 chroot, gfx940, ASan/UBSan + TSan and the fuzzers (tests/run_all.sh full)
#   make test-sanitize  the suites under ASan + UBSan, the threaded ones under TSan (part of make check)
#   make fuzz       the fuzz targets of tests/fuzz/, FUZZ_SECONDS (300) each (5 s each in make check)
#   make gpu-check  on a GPU machine: GPU suites + benchmarks, JSON into $$OUT (or build/gpu-check-PART); GPU_CHECK_PART=check|bench|kernelbench|sanitize|all (kernelbench: KernelBench level 1 beside PyTorch; sanitize: the GPU suites under compute-sanitizer)
#   make gen        re-embed kernels/*.hip into amdkit.h;  make gen-check: fail if amdkit.h is stale
#   make install PREFIX=DIR   amdkit.h, libamdkit.so, the amdkit command, kernels/*.hip and amdkit.pc under DIR
#                   (default /usr/local; DESTDIR for staging);  make uninstall PREFIX=DIR removes them
CC      ?= cc
CXX     ?= c++
BUILD   := build
WARN    := -Wall -Wextra -pedantic
CFLAGS  ?= -O2 -g
LIBS    := -ldl -lpthread -lm
HDR     := amdkit.h
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
TSAN    := -fsanitize=thread
C99     := $(CC) -std=c99 $(WARN) -Werror

TEST_SRC := $(wildcard tests/t_*.c)
TEST_INC := tests/ak_test.h tests/fake_cuda.h $(wildcard tests/ti_*.c) $(wildcard tests/at_*.h)
BENCHES  := bench_ops bench_runtime bench_hotpath bench_attention bench_comm bench_gemm_sweep bench_sweep bench_graph
EXAMPLES := tp_linear hello

.PHONY: all test check demo gpu-check clean install uninstall test-sanitize fuzz gen gen-check sweep
all: $(BUILD)/amdkit_tests $(BUILD)/amdkit $(BUILD)/libamdkit.so $(addprefix $(BUILD)/,$(EXAMPLES) $(BENCHES))

# make test's build: everything but the benchmarks it does not run, which it parses and type-checks with the
# same warnings instead (-fsyntax-only: a sixth of a full compile each); make check builds them all
QUICK_BENCHES := bench_ops bench_sweep
.PHONY: quick-build
quick-build: $(BUILD)/amdkit_tests $(BUILD)/amdkit $(BUILD)/libamdkit.so $(addprefix $(BUILD)/,$(EXAMPLES) $(QUICK_BENCHES)) \
             $(addprefix $(BUILD)/syntax/,$(addsuffix .ok,$(filter-out $(QUICK_BENCHES),$(BENCHES))))
$(BUILD)/syntax/%.ok: bench/%.c bench/bench_common.h tests/fake_cuda.h $(HDR)
	@mkdir -p $(dir $@)
	$(C99) -fsyntax-only $< && touch $@

# --- one rule per kind of program -------------------------------------------
# The test runner (tests/test_main.c + one object per tests/t_*.c), in three builds: plain (CFLAGS), ASan + UBSan
# (_asan, objects in obj-san) and ThreadSanitizer (_tsan, objects in obj-tsan; tests/sanitize.sh runs the last two).
# $(1): suffix of the runner, $(2): object folder, $(3): compile flags
define TEST_RUNNER
$(BUILD)/$(2)/%.o: tests/%.c $(HDR) $(TEST_INC)
	@mkdir -p $$(dir $$@)
	$$(C99) $(3) -c $$< -o $$@
$(BUILD)/amdkit_tests$(1): tests/test_main.c $(patsubst tests/%.c,$(BUILD)/$(2)/%.o,$(TEST_SRC)) $(HDR) $(TEST_INC)
	@mkdir -p $(BUILD)
	$$(C99) $(3) tests/test_main.c $(patsubst tests/%.c,$(BUILD)/$(2)/%.o,$(TEST_SRC)) -o $$@ $(LIBS)
endef
$(eval $(call TEST_RUNNER,,obj,$(CFLAGS)))
$(eval $(call TEST_RUNNER,_asan,obj-san,-O1 -g $(SAN)))
$(eval $(call TEST_RUNNER,_tsan,obj-tsan,-O1 -g $(TSAN)))

# benchmarks: bench/NAME.c (JSON out; bench/NOTES.md says what each measures)
BENCH_CFLAGS ?= -O2
$(addprefix $(BUILD)/,$(BENCHES)): $(BUILD)/%: bench/%.c bench/bench_common.h tests/fake_cuda.h $(HDR)
	@mkdir -p $(BUILD)
	$(C99) $(BENCH_CFLAGS) $< -o $@ $(LIBS)

# examples: examples/NAME.c, one file each, built as a user builds them (amdkit.h on the include path):
# hello (the README's "Use it" program), tp_linear (tensor-parallel layers over N devices, checked against one)
$(addprefix $(BUILD)/,$(EXAMPLES)): $(BUILD)/%: examples/%.c $(HDR)
	@mkdir -p $(BUILD)
	$(C99) $(CFLAGS) -I. $< -o $@ $(LIBS)

# the shared library for programs that load amdkit through an FFI: examples/libamdkit.c, the implementation in one
# translation unit (examples/ctypes_softmax.py uses it)
$(BUILD)/libamdkit.so: examples/libamdkit.c $(HDR)
	@mkdir -p $(BUILD)
	$(C99) $(CFLAGS) -I. -fPIC -shared $< -o $@ $(LIBS)

# test tools: tests/ak_NAME.c (ak_compile_matrix: every family x targets through ak_compile_offline, and ak_symbols,
# both run inside the ROCm 6.4 chroot by tests/check_rocm64.sh; ak_launch_plans)
$(BUILD)/ak_%: tests/ak_%.c $(HDR)
	@mkdir -p $(BUILD)
	$(C99) $(CFLAGS) $< -o $@ $(LIBS)
# ak_launch_plans: every launch the ops would make on each AMD target, from the planners on the cpu backend
# (tests/launch_plan_check.sh holds them to the code objects' metadata)
$(BUILD)/ak_launch_plans: tests/ak_archdev.h tests/at_walk_pool.h

# the command-line tool: examples/amdkit.c (commands) + demo.c + amdkit_run.c (run / bench / tune)
$(BUILD)/amdkit: examples/amdkit.c examples/demo.c examples/amdkit_run.c $(HDR)
	@mkdir -p $(BUILD)
	$(C99) $(CFLAGS) examples/amdkit.c examples/demo.c examples/amdkit_run.c -o $@ $(LIBS)

# tests/emu_llm.cpp: the kernels of norm.hip (residual form), llm.hip and layout.hip run in a host
# SIMT emulation (C++20 threads) against their CPU references, for wave 64 and wave 32.
EMU_SRC := tests/emu_llm.cpp tests/emu_harness.h tests/t_gpu_llm.c kernels/prelude.hip kernels/norm.hip kernels/llm.hip kernels/layout.hip
# EMU_DEFS: extra defines (make check builds one with -DAKEMU_UCONTEXT in its own BUILD: the portable lane switch)
EMU_DEFS ?=
$(BUILD)/emu_llm_w%: $(EMU_SRC) $(HDR)
	@mkdir -p $(BUILD)
	$(CXX) -std=c++20 -O1 -Wall -Wextra -Werror -Wno-unknown-pragmas -Wno-unused-function -DAK_AMD=1 -DAK_WAVE=$* $(EMU_DEFS) \
	  tests/emu_llm.cpp -o $@ -ldl -lpthread -lm

# tests/emu_axis.cpp: ak_reduce_axes' column kernels (axis.hip, reduce.hip's combine) in the same emulation.
EMUA_SRC := tests/emu_axis.cpp tests/emu_harness.h tests/t_gpu_axis.c kernels/prelude.hip kernels/reduce.hip kernels/axis.hip
$(BUILD)/emu_axis_w%: $(EMUA_SRC) $(HDR)
	@mkdir -p $(BUILD)
	$(CXX) -std=c++20 -O1 -Wall -Wextra -Werror -Wno-unknown-pragmas -Wno-unused-function -DAK_AMD=1 -DAK_WAVE=$* \
	  tests/emu_axis.cpp -o $@ -ldl -lpthread -lm

# tests/emu_pool.cpp: ak_pool's kernels (pool.hip: the tiles, the one-thread-an-output kernel) in the same emulation.
EMUP_SRC := tests/emu_pool.cpp tests/emu_harness.h tests/t_gpu_pool.c kernels/prelude.hip kernels/pool.hip
$(BUILD)/emu_pool_w%: $(EMUP_SRC) $(HDR)
	@mkdir -p $(BUILD)
	$(CXX) -std=c++20 -O1 -Wall -Wextra -Werror -Wno-unknown-pragmas -Wno-unused-function -DAK_AMD=1 -DAK_WAVE=$* \
	  tests/emu_pool.cpp -o $@ -ldl -lpthread -lm

# tests/emu_quant.cpp: ak_quantize / ak_dequantize's kernels (quant.hip: rows, 1 x 128 blocks, the tensor) in the same emulation.
EMUQ_SRC := tests/emu_quant.cpp tests/emu_harness.h tests/t_quant.c kernels/prelude.hip kernels/quant.hip
$(BUILD)/emu_quant_w%: $(EMUQ_SRC) $(HDR)
	@mkdir -p $(BUILD)
	$(CXX) -std=c++20 -O1 -Wall -Wextra -Werror -Wno-unknown-pragmas -Wno-unused-function -DAK_AMD=1 -DAK_WAVE=$* \
	  tests/emu_quant.cpp -o $@ -ldl -lpthread -lm

# tests/emu_matrix.cpp: the matrix-core kernels (gemm.hip MFMA / WMMA, gemm_cdna.hip, attention_mma.hip's AMD path; with
# them the matrix-vector kernels of gemm_decode.hip) in the same emulation with the matrix instructions emulated in
# their hardware lane layouts, one binary per target
# (gfx908 gfx90a gfx942 gfx950: wave 64; gfx1100 gfx1200: wave 32). build/emu/prelude.hip: the prelude with
# its clang vector typedefs as akemu_vec (g++ has no ext_vector_type).
EMUM_SRC := tests/emu_matrix.cpp tests/emu_harness.h tests/t_gpu_gemm.c tests/t_gpu_attention.c tests/t_gpu_conv.c tests/at_common.h \
	$(BUILD)/emu/prelude.hip kernels/gemm.hip kernels/gemm_decode.hip kernels/gemm_cdna.hip kernels/gemm_fp8.hip kernels/attention_mma.hip kernels/attention.hip kernels/conv.hip kernels/transpose.hip
$(BUILD)/emu/prelude.hip: kernels/prelude.hip
	@mkdir -p $(BUILD)/emu
	sed -E 's/^typedef ([A-Za-z_0-9]+) ([A-Za-z_0-9]+) __attribute__\(\(ext_vector_type\(([A-Za-z_0-9]+)\)\)\);/typedef akemu_vec<\1, \3> \2;/' \
	  kernels/prelude.hip > $@
	@! grep -n ext_vector_type $@
$(BUILD)/emu_matrix_gfx%: $(EMUM_SRC) $(HDR)
	@mkdir -p $(BUILD)
	$(CXX) -std=c++20 -O1 -fno-strict-aliasing -Wall -Wextra -Werror -Wno-unknown-pragmas -Wno-unused-function -Wno-unused-parameter -Wno-deprecated-enum-enum-conversion -DAK_AMD=1 \
	  -DAK_WAVE=$(if $(filter 1%,$*),32,64) -DAKEMU_GFX=$(subst 90a,90,$*) tests/emu_matrix.cpp -o $@ -ldl -lpthread -lm

# tools/akgen.c: embeds kernels/ into amdkit.h and generates the kernel interfaces
$(BUILD)/akgen: tools/akgen.c
	@mkdir -p $(BUILD)
	$(C99) -O2 tools/akgen.c -o $@

# --- tests ----------------------------------------------------------------------
test:
	@bash tests/run_all.sh quick

check:
	@bash tests/run_all.sh full

test-sanitize:
	@bash tests/sanitize.sh

# every fuzz target (tests/fuzz/) for FUZZ_SECONDS each (libFuzzer where clang has it, else a mutation driver)
FUZZ_SECONDS ?= 300
fuzz:
	@bash tests/fuzz/run.sh $(FUZZ_SECONDS)

demo: $(BUILD)/amdkit
	./$(BUILD)/amdkit info
	./$(BUILD)/amdkit demo

gpu-check:
	@bash tests/gpu_check.sh

clean:
	rm -rf $(BUILD)

# --- kernel library: embedded sources --------------------------------------------
# `make gen` embeds kernels/*.hip into amdkit.h (two regions: //>#akgen prelude ... and //>#akgen library ...);
# `make gen-check` regenerates into a copy and fails when amdkit.h is stale.
gen: $(BUILD)/akgen
	./$(BUILD)/akgen amdkit.h kernels

gen-check: $(BUILD)/akgen
	@mkdir -p $(BUILD)/gen-check
	cp amdkit.h $(BUILD)/gen-check/amdkit.h
	./$(BUILD)/akgen $(BUILD)/gen-check/amdkit.h kernels
	@diff -u amdkit.h $(BUILD)/gen-check/amdkit.h > $(BUILD)/gen-check/diff.txt || \
	  { head -n 60 $(BUILD)/gen-check/diff.txt; echo "gen-check: amdkit.h is stale, run 'make gen'"; exit 1; }
	@echo "gen-check: amdkit.h matches kernels/"

# `make sweep` on a GPU machine: the row-wise ops over a rows x cols grid, amdkit + PyTorch eager / torch.compile
# + the heat maps (bench/sweep_device.sh, bench/NOTES.md "Shape sweep")
sweep:
	@bash bench/sweep_device.sh

# --- install ------------------------------------------------------------------
# `pkg-config --cflags --libs amdkit` gives what an embedder of the header needs: -I<prefix>/include -ldl -lpthread -lm;
# `pkg-config --cflags --libs amdkit-shared` links libamdkit.so instead (no AMDKIT_IMPLEMENTATION in the program).
PREFIX     ?= /usr/local
DESTDIR    ?=
bindir     := $(PREFIX)/bin
includedir := $(PREFIX)/include
datadir    := $(PREFIX)/share/amdkit
libdir     := $(PREFIX)/lib
pcdir      := $(PREFIX)/lib/pkgconfig
AK_VERSION := $(shell sed -n 's/^\#define AK_VERSION_STRING "\(.*\)"/\1/p' amdkit.h)
AK_DESC    := single-header C toolkit for AMD GPUs (ROCm HIP + hipRTC), NVIDIA GPUs through HIP, and a cpu backend

install: $(BUILD)/amdkit $(BUILD)/libamdkit.so
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(includedir) $(DESTDIR)$(libdir) $(DESTDIR)$(datadir)/kernels $(DESTDIR)$(pcdir)
	install -m 755 $(BUILD)/amdkit $(DESTDIR)$(bindir)/amdkit
	install -m 644 amdkit.h $(DESTDIR)$(includedir)/amdkit.h
	install -m 755 $(BUILD)/libamdkit.so $(DESTDIR)$(libdir)/libamdkit.so
	install -m 644 kernels/*.hip $(DESTDIR)$(datadir)/kernels/
	printf 'prefix=%s\nincludedir=$${prefix}/include\n\nName: amdkit\nDescription: %s\nVersion: %s\nCflags: -I$${includedir}\nLibs: -ldl -lpthread -lm\n' \
	  '$(PREFIX)' '$(AK_DESC)' '$(AK_VERSION)' > $(DESTDIR)$(pcdir)/amdkit.pc
	printf 'prefix=%s\nincludedir=$${prefix}/include\nlibdir=$${prefix}/lib\n\nName: amdkit-shared\nDescription: %s (libamdkit.so)\nVersion: %s\nCflags: -I$${includedir}\nLibs: -L$${libdir} -Wl,-rpath,$${libdir} -lamdkit\nLibs.private: -ldl -lpthread -lm\n' \
	  '$(PREFIX)' '$(AK_DESC)' '$(AK_VERSION)' > $(DESTDIR)$(pcdir)/amdkit-shared.pc
	@echo "installed amdkit $(AK_VERSION) under $(DESTDIR)$(PREFIX)"

uninstall:
	rm -f $(DESTDIR)$(bindir)/amdkit $(DESTDIR)$(includedir)/amdkit.h $(DESTDIR)$(libdir)/libamdkit.so
	rm -f $(DESTDIR)$(pcdir)/amdkit.pc $(DESTDIR)$(pcdir)/amdkit-shared.pc
	rm -f $(addprefix $(DESTDIR)$(datadir)/kernels/,$(notdir $(wildcard kernels/*.hip)))
	-rmdir $(DESTDIR)$(datadir)/kernels $(DESTDIR)$(datadir) 2>/dev/null
	@echo "removed amdkit from $(DESTDIR)$(PREFIX)"
