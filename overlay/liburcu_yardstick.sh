#!/bin/bash
# Builds every test program of liburcu's own test suite (its repository's
# tests/unit, tests/benchmark and tests/regression, C and C++) unchanged
# against an installed overlay, with -I/-l only, and runs the suites as
# liburcu's own targets do, through liburcu's own scripts: `make check`
# (the unit TESTS) and `make regtest` (regression's REGTEST_TESTS, then
# benchmark's: the 1-second urcu and hash table runs); and liburcu's
# doc/examples, through their own Makefiles.  Not part of CI (it needs
# liburcu's sources, 0.13 to 0.15): docs/LIBURCU.md has the results.
#
#   overlay/liburcu_yardstick.sh LIBURCU_SOURCE_DIR PREFIX [WORKDIR]
#
# PREFIX is where `make install` put quiesce.  YARDSTICK_SUITES picks the
# suites: "examples check regtest" by default (regtest takes half an hour
# on two CPUs), empty to build only.  The programs, their sources and flags, and
# the tests are read from liburcu's Makefile.am files, so the set is the
# one that version builds and runs.  Prints a line for each program that
# does not build cleanly, then one per test: its TAP counts and exit
# status.  Exits 1 if a program fails to build or reaches a real liburcu,
# or a test fails.
set -u
src=$1 prefix=$2 work=${3:-$(mktemp -d)}
suites=${YARDSTICK_SUITES-examples check regtest}
cc=${CC:-cc} cxx=${CXX:-c++}
libdir=$(ls -d "$prefix"/lib*/ | head -n 1)
libdir=${libdir%/}
tests=$src/tests
build=$work/tests
export LD_LIBRARY_PATH="$libdir"

# The build tree starts as a copy of the tests' tree, as in an in-tree
# build: 0.13's scripts run the programs and each other from it (./name).
mkdir -p "$build/lib"
cp -R "$tests/." "$build/"

inc="-I$prefix/include/quiesce/liburcu -I$prefix/include"
libs="-L$libdir -lquiesce-urcu -lquiesce -pthread"
# What liburcu's configure defines for its tests on Linux (its config.h).
# Each directory's own include paths (its Makefile.am's AM_CPPFLAGS: src/
# for the internal urcu-wait.h and compat-smp.h, tests/common, ...) come
# after the overlay's.
conf="-D_GNU_SOURCE -DHAVE_GETTID=1 -DHAVE_RAND_R=1 -DHAVE_SCHED_SETAFFINITY=1
	-DHAVE_SCHED_GETCPU=1"
warn="-Wall -Wextra"
failed=0

# Makefile.am with continuation lines joined and comments dropped.
makefile() {
	sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' -e '/^#/d' "$tests/$1/Makefile.am"
}
# Directory $1's AM_CPPFLAGS, its source and build trees being $src.
dir_cppflags() {
	makefile "$1" | sed -n 's/^AM_CPPFLAGS[ 	]*+=//p' | tr '\n' ' ' |
		sed "s|\$(top_srcdir)|$src|g; s|\$(top_builddir)|$src|g"
}

# The value of variable $2 in directory $1's Makefile.am, with references
# to the file's own variables expanded (0.13: TESTS = $(noinst_PROGRAMS))
# and others ($(AM_CFLAGS), configure's) dropped.
var() {
	local value ref name
	value=$(makefile "$1" | sed -n "s/^$2[ 	]*[+]*=[ 	]*//p")
	for ref in $(echo "$value" | grep -o '\$([A-Za-z_]*)' | sort -u); do
		name=${ref#??}
		name=${name%)}
		if makefile "$1" | grep -q "^$name[ 	]*[+]*="; then
			value=$(echo "$value" | sed "s|\$($name)|$(var "$1" "$name")|g")
		fi
	done
	echo "$value" | sed 's/\$([A-Za-z_]*)//g'
}

# The helper libraries liburcu's tests link (libtap, libdebug-yield).
$cc -O2 -c $inc $conf $(dir_cppflags utils) -o "$build/lib/tap.o" "$tests/utils/tap.c" || exit 1
$cc -O2 -c $inc $conf $(dir_cppflags common) -o "$build/lib/debug-yield.o" \
	"$tests/common/debug-yield.c" || exit 1

build_program() { # dir, program
	dir=$1 prog=$2
	canon=$(echo "$prog" | tr -c 'A-Za-z0-9_@\n' '_')
	sources=$(var "$dir" "${canon}_SOURCES")
	flags="$(var "$dir" "${canon}_CFLAGS") $(var "$dir" "${canon}_CXXFLAGS")"
	ldadd=$(makefile "$dir" | sed -n "s/^${canon}_LDADD[ 	]*=//p")
	extra=$(dir_cppflags "$dir")
	objs="" link=$cc ok=1 log="$build/$dir/$prog.build.log"
	: > "$log"
	for s in $sources; do
		case $s in
		*.h) continue ;;
		*.cpp | *.cc) compiler=$cxx link=$cxx ;;
		*) compiler=$cc ;;
		esac
		o="$build/$dir/$prog.${s%.*}.o"
		$compiler -O2 $warn -c -MD -MF "$o.d" -o "$o" $inc $conf $extra $flags \
			"$tests/$dir/$s" >> "$log" 2>&1 || ok=0
		objs="$objs $o"
	done
	case $ldadd in *TAP_LIB*) objs="$objs $build/lib/tap.o" ;; esac
	case $ldadd in *DEBUG_YIELD_LIB*) objs="$objs $build/lib/debug-yield.o" ;; esac
	[ $ok = 1 ] && $link -o "$build/$dir/$prog" $objs $libs >> "$log" 2>&1 || ok=0
	if [ $ok = 0 ]; then
		printf '%-48s does not build: %s\n' "$dir/$prog" \
			"$(grep -m1 -E 'error|undefined' "$log")"
		return 1
	fi
	# A header the overlay lacks would be found in a real liburcu's
	# installed headers (the system include path): that is a failure too.
	real=$(cat "$build/$dir/$prog".*.d | tr ' ' '\n' | grep -E '/urcu[/.-]' |
		grep -v -e "^$prefix/" -e "^$src/" | sort -u | head -n 3 | tr '\n' ' ')
	if [ -n "$real" ]; then
		printf '%-48s used real liburcu headers: %s\n' "$dir/$prog" "$real"
		return 1
	fi
	if objdump -p "$build/$dir/$prog" | grep NEEDED | grep -q liburcu; then
		printf '%-48s linked against liburcu itself\n' "$dir/$prog"
		return 1
	fi
	# Warnings from the overlay's headers: a program that builds cleanly
	# against liburcu should build cleanly here.
	if grep -q "^$prefix/.*warning:" "$log"; then
		printf '%-48s builds, with warnings from the overlay: %s\n' "$dir/$prog" \
			"$(grep -m1 "^$prefix/.*warning:" "$log")"
	fi
	return 0
}

built=0
for dir in unit benchmark regression; do
	for prog in $(var "$dir" noinst_PROGRAMS); do
		if build_program "$dir" "$prog"; then built=$((built + 1)); else failed=1; fi
	done
done
echo "$built programs built"

# liburcu's tests find their programs and scripts through these, and the
# tools through what its configure writes into tests/utils/env.sh.
export URCU_TESTS_SRCDIR="$tests" URCU_TESTS_BUILDDIR="$build"
export URCU_TESTS_NPROC_BIN="$(type -P nproc)" URCU_TESTS_GETCONF_BIN="$(type -P getconf)"
export URCU_TESTS_TIME_BIN="$(type -P time)"

# A test runs in its directory of the build tree, as under liburcu's
# make: a program, or one of its scripts (0.13's made from a .tap.in).
run_test() { # dir, test
	dir=$1 t=$2 log="$build/$1/$2.log"
	cd "$build/$dir" || exit 1
	[ -e "$t" ] || [ ! -e "$t.in" ] || sed 's|@NPROC_CMD@|nproc|g' "$t.in" > "$t"
	if [ "$(head -c 4 "$t")" = "$(printf '\177ELF')" ]; then
		set -- "./$t"
	else
		set -- bash "./$t"
	fi
	timeout 1800 "$@" > "$log" 2>&1 < /dev/null
	rc=$?
	oks=$(grep -c '^ok' "$log") bad=$(grep -c '^not ok' "$log")
	verdict=passes
	[ $rc -ne 0 ] || [ "$bad" -ne 0 ] && verdict=FAILS failed=1
	printf '%-48s %s: %d ok, %d not ok, exit %d\n' "$dir/$t" "$verdict" "$oks" "$bad" $rc
	[ $verdict = passes ] || grep -m3 -e '^not ok' -e '^#.*[Ee]rror' "$log" | sed 's/^/    /'
}

# liburcu's doc/examples, the API's example programs, built by their own
# Makefiles (as installed: dist-files/Makefile on top) with the overlay's
# -I and liburcu's -l names (PREFIX/lib/quiesce/liburcu), then each run:
# it must exit 0.
run_examples() {
	local ex=$work/examples ran=0 b name rc real
	rm -rf "$ex"
	cp -R "$src/doc/examples" "$ex"
	cp "$src/doc/examples/dist-files/Makefile" "$ex/"
	if ! make -s -C "$ex" CPPFLAGS="$inc -MD" LDFLAGS="-L$libdir/quiesce/liburcu -pthread" \
		> "$ex/build.log" 2>&1; then
		echo "doc/examples do not build: $(grep -m1 -E 'error|undefined' "$ex/build.log")"
		failed=1
		return
	fi
	real=$(find "$ex" -name '*.d' -exec cat {} + | tr ' ' '\n' | grep -E '/urcu[/.-]' |
		grep -v -e "^$prefix/" -e "^$ex/" | sort -u | head -n 3 | tr '\n' ' ')
	if [ -n "$real" ]; then
		echo "doc/examples used real liburcu headers: $real"
		failed=1
	fi
	for b in $(find "$ex" -type f -perm -u+x | sort); do
		name=examples/${b#"$ex"/}
		if objdump -p "$b" | grep NEEDED | grep -q liburcu; then
			printf '%-48s linked against liburcu itself\n' "$name"
			failed=1
			continue
		fi
		(cd "${b%/*}" && timeout 60 "$b" > "$b.log" 2>&1 < /dev/null)
		rc=$?
		if [ $rc -eq 0 ]; then
			ran=$((ran + 1))
		else
			printf '%-48s FAILS: exit %d\n' "$name" $rc
			failed=1
		fi
	done
	echo "doc/examples: $ran programs built and exited 0"
}

for suite in $suites; do
	case $suite in
	examples) run_examples ;;
	check) for t in $(var unit TESTS); do run_test unit "$t"; done ;;
	regtest)
		for t in $(var regression REGTEST_TESTS); do run_test regression "$t"; done
		for t in $(var benchmark REGTEST_TESTS); do run_test benchmark "$t"; done
		;;
	*) echo "unknown suite $suite" >&2; exit 2 ;;
	esac
done
exit $failed
