# A thin layer over CMake.  make bench: build and run the benchmark report;
# make test: the whole suite, in a default build (also under valgrind), an
# ASan+UBSan and a TSan build.
BUILD ?= build
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local
CTEST_JOBS ?= 2
# Sanitizer builds run one test at a time: their timing is what the
# concurrency tests probe, and two at once on 2 cores distort it.
SANITIZER_CTEST_JOBS ?= 1
BENCH_ARGS ?= all

.PHONY: all build deps-test deps-bench deps-ci test test-default test-valgrind test-asan test-tsan check-compilers bench install clean

all: build

# What each command needs and this machine lacks: installed when run as root
# with apt-get, otherwise named with the line that installs it
# (tools/ensure-deps.sh).
deps-test deps-bench deps-ci:
	bash tools/ensure-deps.sh $(@:deps-%=%)

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j $(JOBS)

test: deps-test test-default test-valgrind test-asan test-tsan

test-default: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(CTEST_JOBS) -LE valgrind

# The plain build's tests under valgrind (tests/valgrind.cmake), one at a
# time: valgrind runs one thread at a time, and its timing is slow enough.
test-valgrind: build
	ctest --test-dir $(BUILD) --output-on-failure -j 1 -L valgrind

# Debug, not optimized: at -O2 gcc 12 miscompiles UBSan's null check of a
# TLS object's address, branching on flags that the instruction before it
# does not set, and reports "member access within null pointer" on
# rcu_read_unlock()'s counter whenever the comparison before was equal
# (test_rcuhash, test_rcuhash_ordered, test_rcuhash_stress).
test-asan:
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DQUIESCE_SANITIZE=address -DQUIESCE_BUILD_BENCH=OFF
	cmake --build $(BUILD)-asan -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --test-dir $(BUILD)-asan --output-on-failure -j $(SANITIZER_CTEST_JOBS)

test-tsan:
	cmake -S . -B $(BUILD)-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQUIESCE_SANITIZE=thread -DQUIESCE_BUILD_BENCH=OFF
	cmake --build $(BUILD)-tsan -j $(JOBS)
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 die_after_fork=0" \
		ctest --test-dir $(BUILD)-tsan --output-on-failure -j $(SANITIZER_CTEST_JOBS)

# The other compilers the project keeps building with: clang, and gcc for
# aarch64 (compile only), each warning-free.
check-compilers:
	cmake -S . -B $(BUILD)-clang -DCMAKE_C_COMPILER=clang -DCMAKE_C_FLAGS=-Werror
	cmake --build $(BUILD)-clang -j $(JOBS)
	cmake -S . -B $(BUILD)-aarch64 -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc \
		-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 \
		-DCMAKE_C_FLAGS=-Werror -DQUIESCE_BUILD_BENCH=OFF
	cmake --build $(BUILD)-aarch64 -j $(JOBS)

bench: deps-bench build
	$(BUILD)/bench/quiesce-bench $(BENCH_ARGS)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan $(BUILD)-clang $(BUILD)-aarch64 bench-results
