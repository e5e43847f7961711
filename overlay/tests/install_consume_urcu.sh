#!/bin/sh
# Installs the build into a scratch prefix, then builds a liburcu-style
# program (overlay/tests/consumer.c, one per flavor) against the overlay
# four ways: through the overlay's pkg-config files only, with -I/-l only,
# with liburcu's own -l names and one -L (dynamically and statically), and
# with CMake's find_package(quiesce COMPONENTS urcu).  Each program must
# run, and must need no liburcu library.  Then a program linked with a
# library named as liburcu's ahead of the overlay must refuse to run.
set -eu
build=$1 source=$2 compiler=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
prefix="$work/prefix"
libdir=$(ls -d "$prefix"/lib*/ | head -n 1)
libdir=${libdir%/}
consumer="$source/overlay/tests/consumer.c"
export LD_LIBRARY_PATH="$libdir"

no_liburcu() {
	if objdump -p "$1" | grep NEEDED | grep -q 'liburcu'; then
		echo "$1 needs a liburcu library"; exit 1
	fi
	objdump -p "$1" | grep NEEDED | grep -q 'libquiesce-urcu' ||
		{ echo "$1 does not need libquiesce-urcu"; exit 1; }
}

for pc in liburcu:memb liburcu-memb:memb liburcu-mb:mb liburcu-signal:signal \
	  liburcu-bp:bp liburcu-qsbr:qsbr liburcu-cds:memb; do
	name=${pc%%:*} flavor=${pc#*:}
	for mode in lgpl sym; do
		def="-DCONSUMER_$(echo "$flavor" | tr a-z A-Z)"
		[ "$mode" = lgpl ] && def="$def -D_LGPL_SOURCE"
		out="$work/$name-$mode"
		"$compiler" $def -o "$out" "$consumer" \
			$(PKG_CONFIG_PATH="$libdir/quiesce/urcu-pkgconfig" pkg-config --cflags --libs "$name")
		"$out" >/dev/null
		no_liburcu "$out"
	done
done

# -I/-l only: the overlay's include directory, quiesce's, and the two libraries.
"$compiler" -DCONSUMER_MEMB -o "$work/by_flags" "$consumer" \
	-I "$prefix/include/quiesce/liburcu" -I "$prefix/include" -L "$libdir" -lquiesce-urcu -lquiesce -pthread
"$work/by_flags" >/dev/null
no_liburcu "$work/by_flags"

# liburcu's own names, as a build that hard-codes them links (gcc passes
# --as-needed on some distributions: the overlay's inline code must keep
# libquiesce-urcu, and the linker scripts must bring libquiesce).
for lib in urcu:memb urcu-memb:memb urcu-mb:mb urcu-signal:signal urcu-bp:bp urcu-qsbr:qsbr; do
	name=${lib%%:*} flavor=${lib#*:}
	out="$work/by_name-$name"
	"$compiler" -D_LGPL_SOURCE "-DCONSUMER_$(echo "$flavor" | tr a-z A-Z)" -o "$out" "$consumer" \
		-I "$prefix/include/quiesce/liburcu" -I "$prefix/include" \
		-Wl,--as-needed -L "$libdir/quiesce/liburcu" "-l$name" -lurcu-cds -lurcu-common -pthread
	"$out" >/dev/null
	no_liburcu "$out"
done
"$compiler" -D_LGPL_SOURCE -DCONSUMER_QSBR -o "$work/by_name_static" "$consumer" \
	-I "$prefix/include/quiesce/liburcu" -I "$prefix/include" \
	-L "$libdir/quiesce/liburcu" -Wl,-Bstatic -lurcu-qsbr -Wl,-Bdynamic -pthread
"$work/by_name_static" >/dev/null
if objdump -p "$work/by_name_static" | grep NEEDED | grep -q 'liburcu\|libquiesce'; then
	echo "by_name_static needs a shared liburcu or quiesce library"; exit 1
fi

# A library named as liburcu's, linked ahead of the overlay, would take
# some of the program's calls: libquiesce-urcu must refuse to run with it,
# --as-needed or not (overlay/src/link_check.c).
mkdir "$work/fake"
cat > "$work/fake/fake.c" <<'FAKE'
/* The calls consumer.c makes, as a liburcu with no grace periods. */
void urcu_memb_register_thread(void) { }
void urcu_memb_unregister_thread(void) { }
void urcu_memb_synchronize_rcu(void) { }
void urcu_memb_barrier(void) { }
void urcu_memb_call_rcu(void *head, void (*func)(void *)) { func(head); }
FAKE
"$compiler" -shared -fPIC -o "$work/fake/liburcu-memb.so" "$work/fake/fake.c"
for as_needed in -Wl,--as-needed -Wl,--no-as-needed; do
	"$compiler" -D_LGPL_SOURCE -DCONSUMER_MEMB -o "$work/mixed" "$consumer" \
		-I "$prefix/include/quiesce/liburcu" -I "$prefix/include" "$as_needed" \
		-L "$work/fake" -lurcu-memb -L "$libdir" -lquiesce-urcu -lquiesce -pthread
	if LD_LIBRARY_PATH="$work/fake:$libdir" "$work/mixed" >/dev/null 2>"$work/mixed.err"; then
		echo "a program linked with a liburcu ahead of the overlay ran ($as_needed)"; exit 1
	fi
	grep -q 'liburcu-memb.so is loaded in this process too' "$work/mixed.err" ||
		{ echo "no message naming the liburcu library ($as_needed):"; cat "$work/mixed.err"; exit 1; }
done

# The same liburcu needed by a library of the program rather than by the
# program (Debian's libntirpc needs liburcu-bp, and Ganesha links it): the
# program is built through the overlay alone, and must still refuse.
cat > "$work/fake/dep.c" <<'DEP'
void urcu_memb_register_thread(void);
void dep_start(void) { urcu_memb_register_thread(); }
DEP
"$compiler" -shared -fPIC -o "$work/fake/libdep.so" "$work/fake/dep.c" -L "$work/fake" -lurcu-memb
"$compiler" -D_LGPL_SOURCE -DCONSUMER_MEMB -o "$work/dep_mixed" "$consumer" \
	-I "$prefix/include/quiesce/liburcu" -I "$prefix/include" -Wl,--no-as-needed \
	-L "$libdir" -lquiesce-urcu -lquiesce -L "$work/fake" -ldep -pthread
if LD_LIBRARY_PATH="$work/fake:$libdir" "$work/dep_mixed" >/dev/null 2>"$work/dep_mixed.err"; then
	echo "a program whose library needs a liburcu ran"; exit 1
fi
grep -q 'liburcu-memb.so is loaded in this process too, linked by the program or by a library' \
	"$work/dep_mixed.err" || { echo "no message naming the dependency's liburcu:"; cat "$work/dep_mixed.err"; exit 1; }

# A prefix outside the loader's paths, found through RUNPATHs alone: a
# library of the program calls the overlay out of line (so --as-needed
# keeps libquiesce-urcu and drops libquiesce) and is linked with
# -Wl,-rpath,PREFIX/lib; the program, which only links that library, runs
# with no LD_LIBRARY_PATH (multipath-tools' tests set theirs to their own
# directories).  The loader looks for libquiesce-urcu's own needs through
# libquiesce-urcu's RUNPATH, not its user's: it must find libquiesce
# beside itself.
mkdir "$work/runpath"
cat > "$work/runpath/lib.c" <<'LIB'
#include <urcu.h>
int lib_grace_period(void)
{
	rcu_register_thread();
	synchronize_rcu();
	rcu_unregister_thread();
	return 0;
}
LIB
cat > "$work/runpath/main.c" <<'MAIN'
int lib_grace_period(void);
int main(void) { return lib_grace_period(); }
MAIN
"$compiler" -shared -fPIC -o "$work/runpath/libgp.so" "$work/runpath/lib.c" \
	$(PKG_CONFIG_PATH="$libdir/quiesce/urcu-pkgconfig" pkg-config --cflags --libs liburcu) \
	-Wl,--as-needed -Wl,-rpath,"$libdir"
"$compiler" -o "$work/runpath/main" "$work/runpath/main.c" -L "$work/runpath" -lgp \
	-Wl,-rpath,"$work/runpath"
env -u LD_LIBRARY_PATH "$work/runpath/main" ||
	{ echo "a library linked with -Wl,-rpath,PREFIX/lib failed to load the overlay"; exit 1; }

mkdir "$work/consumer"
cp "$consumer" "$work/consumer/"
cat > "$work/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(quiesce REQUIRED COMPONENTS urcu)
add_executable(consumer consumer.c)
target_compile_definitions(consumer PRIVATE CONSUMER_QSBR _LGPL_SOURCE)
target_link_libraries(consumer PRIVATE quiesce::urcu)
CMAKE
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" \
	-DCMAKE_C_COMPILER="$compiler" >/dev/null
cmake --build "$work/consumer/build" >/dev/null
"$work/consumer/build/consumer" >/dev/null
no_liburcu "$work/consumer/build/consumer"
echo "overlay consumed through pkg-config (7 names, 2 linking modes), -I/-l, liburcu's -l names (shared, static) and find_package(quiesce COMPONENTS urcu); no liburcu needed; a liburcu linked ahead, or by a library of the program, is refused"
