#!/bin/sh
# The same liburcu benchmark programs (its repository's tests/benchmark,
# from the sources of the liburcu that is installed) built twice, against
# that liburcu and against the overlay, and run alternately under the
# benchmark lock; prints each side's rates and the overlay's ratio:
#   - RCU: test_urcu* (2 readers, 1 updater), reads/s and updates/s;
#   - queues and stacks: test_urcu_wfcq, _wfq, _lfq, _wfs, _lfs, _lfs_rcu
#     (1 enqueuer, 1 dequeuer; lfq and lfs_rcu free through call_rcu),
#     successful enqueues/s and dequeues/s;
#   - the hash table: test_urcu_hash (qsbr, unchanged), lookups/s and
#     updates/s.
# Not part of CI (it needs liburcu and its sources).
#
#   overlay/liburcu_bench.sh LIBURCU_SOURCE_DIR PREFIX [SECONDS] [REPEATS] [NOISY_REPEATS]
#
# The two sides run alternately, run by run.  test_urcu* rows give the best
# of REPEATS (2) runs; the queue, stack and hash rows, whose rates move by
# 2x or more from run to run on both sides (a malloc() in one thread and a
# free() in another per node, where the threads land, how fast a writer
# fills the table), give the median of NOISY_REPEATS (9).  On a virtual
# machine those rates also fall into modes, the same on both sides
# (test_urcu_lfs: about 3.5 or about 12 M dequeues/s), because a cache
# line may cross between the two CPUs in 100 ns in one run and in 470 ns
# in the next (docs/LIBURCU.md, "Where a cell is below 1.0"), and a median
# of few runs can land a mode apart with the same code.
#
# Each run takes /tmp/quiesce-bench.lock, unless QUIESCE_BENCH_LOCK_HELD is
# set: the caller holds it for the whole script (to change a kernel setting
# for the length of one measurement, say).
set -eu
src=$1 prefix=$2 secs=${3:-3} reps=${4:-2} noisy_reps=${5:-9}
lock="flock /tmp/quiesce-bench.lock"
[ -n "${QUIESCE_BENCH_LOCK_HELD:-}" ] && lock=
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
libdir=$(ls -d "$prefix"/lib*/ | head -n 1)
libdir=${libdir%/}
conf="-D_GNU_SOURCE -DHAVE_GETTID=1 -DHAVE_RAND_R=1 -DHAVE_SCHED_SETAFFINITY=1 -I$src/tests/common"
B=$src/tests/benchmark

# test_urcu_wfs creates its enqueuers into tid_enqueuer[i] (the argument
# index) and joins tid_enqueuer[i_thr], never created: it exits 1 against
# liburcu too.  Both sides build a copy with that one index fixed.
mkdir -p "$work/tests/benchmark"
ln -s "$src/tests/common" "$work/tests/common"
sed 's/&tid_enqueuer\[i\]/\&tid_enqueuer[i_thr]/' "$B/test_urcu_wfs.c" \
	> "$work/tests/benchmark/test_urcu_wfs.c"

build() {	# name "sources" flags liburcu-libraries [directory of the sources]
	d=${5:-$B}
	cc -O2 -w -o "$work/liburcu_$1" $conf $3 -I"$src/src" $(for s in $2; do echo "$d/$s"; done) \
		$(for l in $4; do echo "-l$l"; done) -lurcu-common -pthread
	cc -O2 -w -o "$work/overlay_$1" $conf $3 -I"$prefix/include/quiesce/liburcu" \
		-I"$prefix/include" -I"$src/src" $(for s in $2; do echo "$d/$s"; done) \
		-L"$libdir" -lquiesce-urcu -lquiesce -pthread
}
build test_urcu test_urcu.c "" urcu
build test_urcu_out_of_line test_urcu.c -DDYNAMIC_LINK_TEST urcu
build test_urcu_mb test_urcu.c -DRCU_MB urcu-mb
build test_urcu_qsbr test_urcu_qsbr.c "" urcu-qsbr
build test_urcu_bp test_urcu_bp.c "" urcu-bp
build test_urcu_gc test_urcu_gc.c "" urcu
build test_urcu_defer test_urcu_defer.c "" urcu
for q in wfcq wfq lfq lfs lfs_rcu; do
	build test_urcu_$q test_urcu_$q.c "" "urcu urcu-cds"
done
build test_urcu_wfs test_urcu_wfs.c "" "urcu urcu-cds" "$work/tests/benchmark"
build test_urcu_hash "test_urcu_hash.c test_urcu_hash_rw.c test_urcu_hash_unique.c" "" \
	"urcu-qsbr urcu-cds"

# The probe: the round trip of one cache line between CPUs 0 and 1, in ns.
# On a virtual machine it can change from run to run (about 100 or about
# 470 ns on ours), and the queue and stack rates follow it; each queue or
# stack run is preceded by a probe, and the row counts the runs a side
# that found the slow link (a round trip over 250 ns).
cat > "$work/probe.c" <<'EOF'
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

#define TRIPS 100000L

/* Relaxed loads and stores: the turn is the only thing the threads share. */
static long turn;

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *answer(void *arg)
{
	(void)arg;
	pin(1);
	for (long i = 0; i < TRIPS; i++) {
		while (__atomic_load_n(&turn, __ATOMIC_RELAXED) != 2 * i + 1)
			;	/* ended by main()'s store of the odd turn */
		__atomic_store_n(&turn, 2 * i + 2, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(void)
{
	struct timespec t0, t1;
	pthread_t t;

	pin(0);
	pthread_create(&t, NULL, answer, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < TRIPS; i++) {
		__atomic_store_n(&turn, 2 * i + 1, __ATOMIC_RELAXED);
		while (__atomic_load_n(&turn, __ATOMIC_RELAXED) != 2 * i + 2)
			;	/* ended by answer()'s store of the even turn */
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(t, NULL);
	printf("%.0f\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / TRIPS);
	return 0;
}
EOF
cc -O2 -o "$work/probe" "$work/probe.c" -pthread

# field NAME LINE: the number after NAME in a SUMMARY line.
field() {
	echo "$2" | sed "s/.*$1 *\([0-9]*\).*/\1/"
}

# ratio OVERLAY LIBURCU: "1.23x", or "-" when liburcu's is 0 (no writer).
ratio() {
	if [ "$2" -eq 0 ]; then echo -; else printf '%.2fx' "$(echo "$1 / $2" | bc -l)"; fi
}

# pair PROGRAM LABEL FIELD_A FIELD_B ARGS...: both sides, best of $reps,
# one line of rates per second and ratios.
run_side() {	# side program fa fb args...: prints "a b" of one run
	side=$1 p=$2 fa=$3 fb=$4
	shift 4
	line=$(LD_LIBRARY_PATH="$libdir" $lock "$work/${side}_$p" "$@" | grep SUMMARY) || {
		echo "${side}_$p $*: no SUMMARY line" >&2
		exit 1
	}
	echo "$(field "$fa" "$line") $(field "$fb" "$line")"
}

# Of a list of numbers: best (the largest) or median.
pick() {
	tr ' ' '\n' | sort -n | awk -v how="$1" '{ v[NR] = $1 }
		END { print how == "best" ? v[NR] : v[int((NR + 1) / 2)] }'
}

pair() {	# program label field_a field_b args...
	p=$1 label=$2 fa=$3 fb=$4
	shift 4
	liburcu_as= liburcu_bs= overlay_as= overlay_bs= liburcu_slow=0 overlay_slow=0
	for r in $(seq "$n"); do
		for side in liburcu overlay; do
			if [ -n "$probe" ] && [ "$($lock "$work/probe")" -gt 250 ]; then
				eval "${side}_slow=\$((${side}_slow + 1))"
			fi
			ab=$(run_side $side "$p" "$fa" "$fb" "$@")
			eval "${side}_as=\"\$${side}_as ${ab% *}\" ${side}_bs=\"\$${side}_bs ${ab#* }\""
		done
	done
	for side in liburcu overlay; do
		eval "a=\$(echo \$${side}_as | pick $how) b=\$(echo \$${side}_bs | pick $how)"
		eval "${side}_a=$((a / secs)) ${side}_b=$((b / secs))"
	done
	printf '%-28s %14d %14d %12d %12d %7s %7s' "$label" "$liburcu_a" "$overlay_a" \
		"$liburcu_b" "$overlay_b" "$(ratio "$overlay_a" "$liburcu_a")" \
		"$(ratio "$overlay_b" "$liburcu_b")"
	[ -z "$probe" ] || printf ' %9s' "$liburcu_slow/$overlay_slow"
	echo
}

# The first CPU as quiesce-bench names it: a virtual machine's brand does
# not say which core its host lends it.
cpu=$(awk -F': *' '/^model name/ { b = $2 } /^cpu family/ { f = $2 } /^model\t/ { m = $2 }
	/^CPU implementer/ { i = $2 } /^CPU part/ { p = $2 } /^$/ { exit }
	END { printf "%s", b != "" ? b : "unknown"
	      if (f != "") printf " (family %s, model %s)", f, m
	      else if (i != "") printf " (implementer %s, part %s)", i, p }' /proc/cpuinfo)
echo "rcu_expedited=$(cat /sys/kernel/rcu_expedited 2>/dev/null || echo '?'); $(nproc) CPUs, $cpu; ${secs} s a run"
probe=
n=$reps how=best
echo "best of $n runs a side:"
for workload in "flat-out|" "read-mostly|-d 100000"; do
	wname=${workload%%|*} wargs=${workload#*|}
	echo "$wname, 2 readers, 1 updater:"
	printf '%-28s %14s %14s %12s %12s %7s %7s\n' program liburcu_reads/s overlay_reads/s \
		liburcu_upd/s overlay_upd/s reads updates
	for p in test_urcu test_urcu_out_of_line test_urcu_mb test_urcu_qsbr test_urcu_bp \
		test_urcu_gc test_urcu_defer; do
		pair $p $p nr_reads nr_writes 2 1 "$secs" $wargs
	done
done

# Each of the two threads on a CPU of its own, on both sides (the test
# hands out the CPUs in the order its threads start: the enqueuer usually
# gets CPU 0), so that where the threads run is not one more difference
# between them (the rates still move by 2x to 3x from run to run on a
# 2-CPU machine).
pin=
[ "$(nproc)" -ge 2 ] && pin="-a 0 -a 1"
n=$noisy_reps how=median
echo "median of $n runs a side:"
echo "queues and stacks, 1 dequeuer, 1 enqueuer${pin:+ (pinned: $pin; slow_link: runs a side, liburcu/overlay, whose probe took over 250 ns)}:"
printf '%-28s %14s %14s %12s %12s %7s %7s' program liburcu_enq/s overlay_enq/s \
	liburcu_deq/s overlay_deq/s enq deq
[ -z "$pin" ] || printf ' %9s' slow_link
echo
# The probe pins to CPUs 0 and 1: only where the runs are pinned there.
[ -z "$pin" ] || probe=yes
for q in wfcq wfq lfq wfs lfs lfs_rcu; do
	pair test_urcu_$q test_urcu_$q "successful enqueues" "successful dequeues" 1 1 "$secs" $pin
done
probe=

echo "hash table (qsbr; 32 buckets unless pre-sized), 1 reader:"
printf '%-28s %14s %14s %12s %12s %7s %7s\n' workload liburcu_look/s overlay_look/s \
	liburcu_upd/s overlay_upd/s look upd
pair test_urcu_hash "100K keys, no writer" nr_reads nr_writes 1 0 "$secs" -k 100000
pair test_urcu_hash "1M keys pre-sized, no writer" nr_reads nr_writes 1 0 "$secs" \
	-h 1048576 -k 1048576 -O 1048576 -M 1048576
pair test_urcu_hash "64K auto-resize, 1 writer" nr_reads nr_writes 1 1 "$secs" \
	-A -k 65536 -O 65536 -M 65536 -N 65536
pair test_urcu_hash "defaults, 1 writer" nr_reads nr_writes 1 1 "$secs"
