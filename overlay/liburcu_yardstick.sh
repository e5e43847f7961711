#!/bin/sh
# Builds liburcu's own test programs (its repository's tests/benchmark,
# tests/regression and tests/unit, the flavor ones) unchanged against an
# installed overlay, with -I/-l only, and runs each briefly.  Not part of
# CI (it needs liburcu's sources): docs/LIBURCU.md has the results.
#
#   overlay/liburcu_yardstick.sh LIBURCU_SOURCE_DIR PREFIX [WORKDIR]
#
# PREFIX is where `make install` put quiesce.  Prints one line per program:
# built or not, and its result.
set -u
src=$1 prefix=$2 work=${3:-$(mktemp -d)}
cc=${CC:-cc}
libdir=$(ls -d "$prefix"/lib*/ | head -n 1)
libdir=${libdir%/}
mkdir -p "$work"
export LD_LIBRARY_PATH="$libdir"

inc="-I$prefix/include/quiesce/liburcu -I$prefix/include"
libs="-L$libdir -lquiesce-urcu -lquiesce -pthread"
# What liburcu's configure defines for its tests on Linux, and its own
# tests' include paths (src/ for the internal urcu-wait.h and urcu-die.h
# that rcutorture uses), after the overlay's.
conf="-D_GNU_SOURCE -DHAVE_GETTID=1 -DHAVE_RAND_R=1 -DHAVE_SCHED_SETAFFINITY=1 -DHAVE_SCHED_GETCPU=1"
bench="$conf -I$src/tests/common -include $src/tests/benchmark/common-states.h"
reg="$conf -I$src/tests/common -I$src/tests/utils -I$src/src"
tap="$src/tests/utils/tap.c"

# name | sources | flags | arguments to run it with
programs='
test_urcu|benchmark/test_urcu.c benchmark/common-states.c|BENCH|4 1 2
test_urcu_dynamic_link|benchmark/test_urcu.c benchmark/common-states.c|BENCH -DDYNAMIC_LINK_TEST|4 1 2
test_urcu_mb|benchmark/test_urcu.c benchmark/common-states.c|BENCH -DRCU_MB|4 1 2
test_urcu_signal|benchmark/test_urcu.c benchmark/common-states.c|BENCH -DRCU_SIGNAL|4 1 2
test_urcu_yield|benchmark/test_urcu.c benchmark/common-states.c common/debug-yield.c|BENCH -DDEBUG_YIELD|4 1 2
test_urcu_timing|benchmark/test_urcu_timing.c benchmark/common-states.c|BENCH|4 1 2
test_urcu_qsbr|benchmark/test_urcu_qsbr.c benchmark/common-states.c|BENCH|4 1 2
test_urcu_qsbr_dynamic_link|benchmark/test_urcu_qsbr.c benchmark/common-states.c|BENCH -DDYNAMIC_LINK_TEST|4 1 2
test_urcu_qsbr_timing|benchmark/test_urcu_qsbr_timing.c benchmark/common-states.c|BENCH|4 1 2
test_urcu_bp|benchmark/test_urcu_bp.c benchmark/common-states.c|BENCH|4 1 2
test_urcu_bp_dynamic_link|benchmark/test_urcu_bp.c benchmark/common-states.c|BENCH -DDYNAMIC_LINK_TEST|4 1 2
test_urcu_gc|benchmark/test_urcu_gc.c benchmark/common-states.c|BENCH|4 1 2
test_urcu_lgc|benchmark/test_urcu_gc.c benchmark/common-states.c|BENCH -DTEST_LOCAL_GC|4 1 2
test_urcu_mb_gc|benchmark/test_urcu_gc.c benchmark/common-states.c|BENCH -DRCU_MB|4 1 2
test_urcu_mb_lgc|benchmark/test_urcu_gc.c benchmark/common-states.c|BENCH -DRCU_MB -DTEST_LOCAL_GC|4 1 2
test_urcu_qsbr_gc|benchmark/test_urcu_qsbr_gc.c benchmark/common-states.c|BENCH|4 1 2
test_urcu_qsbr_lgc|benchmark/test_urcu_qsbr_gc.c benchmark/common-states.c|BENCH -DTEST_LOCAL_GC|4 1 2
test_urcu_defer|benchmark/test_urcu_defer.c benchmark/common-states.c|BENCH|4 1 2
test_urcu_assign|benchmark/test_urcu_assign.c benchmark/common-states.c|BENCH|4 1 2
test_urcu_assign_dynamic_link|benchmark/test_urcu_assign.c benchmark/common-states.c|BENCH -DDYNAMIC_LINK_TEST|4 1 2
test_uatomic_bench|benchmark/test_uatomic.c|BENCH|
test_barrier|benchmark/test_barrier.c benchmark/common-states.c|BENCH|2 1 1
test_urcu_fork|regression/test_urcu_fork.c TAP|REG|
rcutorture_urcu_membarrier_stress|regression/urcutorture.c TAP|REG -DRCU_MEMBARRIER|4 stress
rcutorture_urcu_mb_stress|regression/urcutorture.c TAP|REG -DRCU_MB|4 stress
rcutorture_urcu_qsbr_stress|regression/urcutorture.c TAP|REG -DTORTURE_QSBR -DRCU_QSBR|4 stress
rcutorture_urcu_bp_stress|regression/urcutorture.c TAP|REG -DRCU_BP|4 stress
rcutorture_urcu_membarrier_perf|regression/urcutorture.c TAP|REG -DRCU_MEMBARRIER|4 perf
rcutorture_urcu_membarrier_rperf|regression/urcutorture.c TAP|REG -DRCU_MEMBARRIER|4 rperf
rcutorture_urcu_membarrier_uperf|regression/urcutorture.c TAP|REG -DRCU_MEMBARRIER|4 uperf
rcutorture_urcu_membarrier_stress_percpu|regression/urcutorture.c TAP|REG -DRCU_MEMBARRIER|4 stress 1 callrcu_percpu
rcutorture_urcu_membarrier_stress_perthread|regression/urcutorture.c TAP|REG -DRCU_MEMBARRIER|4 stress 1 callrcu_perthread
rcutorture_urcu_qsbr_stress_percpu|regression/urcutorture.c TAP|REG -DTORTURE_QSBR -DRCU_QSBR|4 stress 1 callrcu_percpu
rcutorture_urcu_bp_stress_perthread|regression/urcutorture.c TAP|REG -DRCU_BP|4 stress 1 callrcu_perthread
test_uatomic|unit/test_uatomic.c TAP|REG|
test_urcu_multiflavor|unit/test_urcu_multiflavor.c unit/test_urcu_multiflavor-memb.c unit/test_urcu_multiflavor-mb.c unit/test_urcu_multiflavor-bp.c unit/test_urcu_multiflavor-qsbr.c TAP|REG|
test_urcu_multiflavor_dynlink|unit/test_urcu_multiflavor.c unit/test_urcu_multiflavor-memb.c unit/test_urcu_multiflavor-mb.c unit/test_urcu_multiflavor-bp.c unit/test_urcu_multiflavor-qsbr.c TAP|REG -DDYNAMIC_LINK_TEST|
test_urcu_multiflavor_single_unit|unit/test_urcu_multiflavor_single_unit.c TAP|REG|
test_urcu_multiflavor_single_unit_dynlink|unit/test_urcu_multiflavor_single_unit.c TAP|REG -DDYNAMIC_LINK_TEST|
'

echo "$programs" | while IFS='|' read -r name sources flags args; do
	[ -n "$name" ] || continue
	files=""
	for s in $sources; do
		if [ "$s" = TAP ]; then files="$files $tap"; else files="$files $src/tests/$s"; fi
	done
	flags=$(echo "$flags" | sed "s|BENCH|$bench|; s|REG|$reg|")
	objs="" ok=1 i=0
	: >"$work/$name.build.log"
	for f in $files; do
		i=$((i + 1))
		$cc -O2 -w -c -MD -MF "$work/$name.$i.d" -o "$work/$name.$i.o" $inc $flags "$f" \
			>>"$work/$name.build.log" 2>&1 || ok=0
		objs="$objs $work/$name.$i.o"
	done
	[ $ok = 1 ] && $cc -o "$work/$name" $objs $libs >>"$work/$name.build.log" 2>&1 || ok=0
	if [ $ok = 0 ]; then
		printf '%-44s does not build: %s\n' "$name" \
			"$(grep -m1 -E 'error|undefined' "$work/$name.build.log")"
		continue
	fi
	# A header the overlay lacks would be found in a real liburcu's
	# installed headers (the system include path): that is a failure too.
	real=$(cat "$work/$name".*.d | tr ' ' '\n' | grep -E '/urcu[/.-]' |
		grep -v -e "^$prefix/" -e "^$src/" | sort -u | head -n 3 | tr '\n' ' ')
	if [ -n "$real" ]; then
		printf '%-44s used real liburcu headers: %s\n' "$name" "$real"
		continue
	fi
	if objdump -p "$work/$name" | grep NEEDED | grep -q liburcu; then
		printf '%-44s linked against liburcu itself\n' "$name"
		continue
	fi
	timeout 120 "$work/$name" $args >"$work/$name.run.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		printf '%-44s builds, passes\n' "$name"
	else
		printf '%-44s builds, fails (exit %d): %s\n' "$name" "$rc" \
			"$(grep -m1 -iE 'not ok|error|fail|abort|assert' "$work/$name.run.log")"
	fi
done
