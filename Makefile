# amdkit - build, test, demo, GPU check. `make help` lists the targets.
CC      ?= cc
CXX     ?= c++
BUILD   := build
WARN    := -Wall -Wextra -pedantic
CFLAGS  ?= -O2 -g
LIBS    := -ldl -lpthread -lm
HDR     := amdkit.h $(wildcard parts/*.inc)

TEST_SRC := $(wildcard tests/t_*.c)
TEST_OBJ := $(patsubst tests/%.c,$(BUILD)/obj/%.o,$(TEST_SRC))

.PHONY: all test demo gpu-check clean help
all: $(BUILD)/amdkit_tests

$(BUILD)/obj/%.o: tests/%.c $(HDR) tests/ak_test.h
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(WARN) -Werror $(CFLAGS) -c $< -o $@

$(BUILD)/amdkit_tests: tests/test_main.c $(TEST_OBJ) $(HDR) tests/ak_test.h
	@mkdir -p $(BUILD)
	$(CC) -std=c99 $(WARN) -Werror $(CFLAGS) tests/test_main.c $(TEST_OBJ) -o $@ $(LIBS)

test: $(BUILD)/amdkit_tests
	./$(BUILD)/amdkit_tests

clean:
	rm -rf $(BUILD)

# --- kernel library: embedded sources and benchmarks (K1) --------------------
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
