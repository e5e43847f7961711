#!/bin/sh
# Installs the build into a scratch prefix, then builds a program against it
# twice: with pkg-config and with CMake's find_package(quiesce).
set -eu
build=$1 source=$2 compiler=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
libdir=$(ls -d "$work"/prefix/lib*/ | head -n 1)

PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs quiesce >/dev/null
"$compiler" -o "$work/by_pkgconfig" "$source/examples/rcu_config.c" \
	$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs quiesce)
LD_LIBRARY_PATH="$libdir" "$work/by_pkgconfig"

mkdir "$work/consumer"
cp "$source/examples/rcu_config.c" "$work/consumer/"
cat > "$work/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(quiesce REQUIRED)
add_executable(consumer rcu_config.c)
target_link_libraries(consumer PRIVATE quiesce::quiesce)
CMAKE
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
	-DCMAKE_C_COMPILER="$compiler" >/dev/null
cmake --build "$work/consumer/build" >/dev/null
LD_LIBRARY_PATH="$libdir" "$work/consumer/build/consumer"
soname=$(objdump -p "$libdir/libquiesce.so" | awk '/SONAME/ { print $2 }')
[ "$soname" = "libquiesce.so.0" ] || { echo "unexpected SONAME $soname"; exit 1; }
echo "installed library consumed through pkg-config and find_package; SONAME $soname"
