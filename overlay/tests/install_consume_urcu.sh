#!/bin/sh
# Installs the build into a scratch prefix, then builds a liburcu-style
# program (overlay/tests/consumer.c, one per flavor) against the overlay
# three ways: through the overlay's pkg-config files only, with -I/-l only,
# and with CMake's find_package(quiesce COMPONENTS urcu).  Each program
# must run, and must need no liburcu library.
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
echo "overlay consumed through pkg-config (7 names, 2 linking modes), -I/-l and find_package(quiesce COMPONENTS urcu); no liburcu needed"
