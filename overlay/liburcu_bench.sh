#!/bin/sh
# The same liburcu benchmark programs (its repository's tests/benchmark
# test_urcu*, from the sources of the liburcu that is installed) built
# twice, against that liburcu and against the overlay, and run alternately
# under the benchmark lock; prints reads/s and updates/s of each and the
# overlay's ratio.  Not part of CI (it needs liburcu and its sources).
#
#   overlay/liburcu_bench.sh LIBURCU_SOURCE_DIR PREFIX [SECONDS] [REPEATS]
set -eu
src=$1 prefix=$2 secs=${3:-3} reps=${4:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
libdir=$(ls -d "$prefix"/lib*/ | head -n 1)
libdir=${libdir%/}
conf="-D_GNU_SOURCE -DHAVE_GETTID=1 -DHAVE_RAND_R=1 -DHAVE_SCHED_SETAFFINITY=1 -I$src/tests/common"
B=$src/tests/benchmark

build() {	# name source flags liburcu-library
	cc -O2 -w -o "$work/liburcu_$1" $conf $3 "$B/$2" -I"$src/src" -l"$4" -lurcu-common -pthread
	cc -O2 -w -o "$work/overlay_$1" $conf $3 -I"$prefix/include/quiesce/liburcu" \
		-I"$prefix/include" -I"$src/src" "$B/$2" -L"$libdir" -lquiesce-urcu -lquiesce -pthread
}
build test_urcu test_urcu.c "" urcu
build test_urcu_out_of_line test_urcu.c -DDYNAMIC_LINK_TEST urcu
build test_urcu_mb test_urcu.c -DRCU_MB urcu-mb
build test_urcu_qsbr test_urcu_qsbr.c "" urcu-qsbr
build test_urcu_bp test_urcu_bp.c "" urcu-bp
build test_urcu_gc test_urcu_gc.c "" urcu
build test_urcu_defer test_urcu_defer.c "" urcu

echo "rcu_expedited=$(cat /sys/kernel/rcu_expedited 2>/dev/null || echo '?'); $(nproc) CPUs; 2 readers, 1 updater, ${secs} s a run, best of ${reps}"
# Two workloads: the updater flat out (every read races a stream of grace
# periods, so reads/s also measures how the read side shares its cache
# lines with them), and read-mostly (the updater paced by test_urcu's -d,
# about a hundred updates a second).
for workload in "flat-out|" "read-mostly|-d 100000"; do
wname=${workload%%|*} wargs=${workload#*|}
echo "$wname:"
printf '%-24s %14s %14s %12s %12s %7s %7s\n' program liburcu_reads/s overlay_reads/s liburcu_upd/s overlay_upd/s reads updates
for p in test_urcu test_urcu_out_of_line test_urcu_mb test_urcu_qsbr test_urcu_bp test_urcu_gc test_urcu_defer; do
	for side in liburcu overlay; do
		best_r=0 best_w=0
		for r in $(seq "$reps"); do
			line=$(LD_LIBRARY_PATH="$libdir" flock /tmp/quiesce-bench.lock \
				"$work/${side}_$p" 2 1 "$secs" $wargs | grep SUMMARY)
			reads=$(echo "$line" | sed 's/.*nr_reads *\([0-9]*\).*/\1/')
			writes=$(echo "$line" | sed 's/.*nr_writes *\([0-9]*\).*/\1/')
			[ "$reads" -gt "$best_r" ] && best_r=$reads
			[ "$writes" -gt "$best_w" ] && best_w=$writes
		done
		eval "${side}_r=$((best_r / secs)) ${side}_w=$((best_w / secs))"
	done
	printf '%-24s %14d %14d %12d %12d %6.2fx %6.2fx\n' "$p" "$liburcu_r" "$overlay_r" \
		"$liburcu_w" "$overlay_w" \
		"$(echo "$overlay_r / $liburcu_r" | bc -l)" "$(echo "$overlay_w / $liburcu_w" | bc -l)"
done
done
