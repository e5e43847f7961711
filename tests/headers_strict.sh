#!/bin/sh
# Compiles every public header, and every header of the liburcu overlay in
# both of liburcu's linking modes, alone in a file, with the warnings that
# demanding programs build with and -Werror; then again as C++ when a C++
# compiler is installed (the headers declare extern "C").  The C file
# first includes <stdnoreturn.h>, which makes "noreturn" a macro (BIND 9
# does): an attribute spelled without underscores would break there.
# Programs add these headers with -I, not as system headers, so their
# warnings would be the program's (-Wsign-conversion: NFS-Ganesha's
# builds saw the queue's state flags, unsigned, stored into an int).
set -eu
source=$1 compiler=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags="-std=gnu11 -Wall -Wextra -Wshadow -Wcast-qual -Wpointer-arith -Wmissing-prototypes
	-Wstrict-prototypes -Wundef -Wwrite-strings -Wvla -Wconversion -Wsign-conversion -Werror"
count=0

cxx=$(command -v g++ || command -v clang++ || true)
cxxflags="-std=gnu++17 -Wall -Wextra -Wshadow -Wcast-qual -Wpointer-arith -Wundef -Werror"

check() { # header, extra flags...
	header=$1
	shift
	printf '#include <stdnoreturn.h>\n#include <%s>\n' "$header" > "$work/t.c"
	if ! "$compiler" $flags "$@" -c -o "$work/t.o" "$work/t.c" 2> "$work/err"; then
		echo "$header $*:"; cat "$work/err"; exit 1
	fi
	count=$((count + 1))
	[ -n "$cxx" ] || return 0
	printf '#include <%s>\n' "$header" > "$work/t.cc"
	if ! "$cxx" $cxxflags "$@" -c -o "$work/t.o" "$work/t.cc" 2> "$work/err"; then
		echo "$header $* (C++):"; cat "$work/err"; exit 1
	fi
	count=$((count + 1))
}

for h in "$source"/include/quiesce/*.h; do
	check "quiesce/${h##*/}" -I "$source/include"
done
# urcu/urcu_ref.h and urcu/uatomic_arch.h warn on purpose (deprecated, as
# liburcu's); map/ is included by the others (map/urcu.h needs a flavor
# selected).
for h in $(cd "$source/overlay/include" && find . -name '*.h' | sed 's|^\./||' |
	   grep -v '^urcu/map/\|^urcu/urcu_ref.h$\|^urcu/uatomic_arch.h$'); do
	for mode in "" -D_LGPL_SOURCE; do
		check "$h" $mode -I "$source/overlay/include" -I "$source/include"
	done
done
# The deprecated name compiles, with liburcu's warning, and brings the atomics.
printf '#include <urcu/uatomic_arch.h>\nlong x;\nvoid inc(void);\nvoid inc(void) { uatomic_inc(&x); }\n' \
	> "$work/t.c"
if ! "$compiler" -I "$source/overlay/include" -I "$source/include" -c -o "$work/t.o" \
	"$work/t.c" 2> "$work/err" || ! grep -q 'uatomic_arch.h is deprecated' "$work/err"; then
	echo "urcu/uatomic_arch.h: no deprecation warning, or no atomics:"; cat "$work/err"; exit 1
fi
count=$((count + 1))
usage() { # compiler, flags, file
	if ! $1 $2 -I "$source/overlay/include" -I "$source/include" \
		-c -o "$work/t.o" "$source/overlay/tests/$3" 2> "$work/err"; then
		echo "overlay/tests/$3 ($1 $2):"; cat "$work/err"; exit 1
	fi
	count=$((count + 1))
}
# How programs use the overlay: atomics and pointers on volatile and const
# objects in C and C++, both linking modes; C++ programs, the queue and
# stack heads.
cxx11=$(echo "$cxxflags" | sed 's/gnu++17/gnu++11/')
for mode in "" -DQUALIFIED_OUT_OF_LINE; do
	usage "$compiler" "$flags $mode" qualified_usage.c
	if [ -n "$cxx" ]; then
		usage "$cxx" "-x c++ $cxxflags $mode" qualified_usage.c
		usage "$cxx" "-x c++ $cxx11 $mode" qualified_usage.c
	fi
done
[ -z "$cxx" ] || usage "$cxx" "$cxxflags" cxx_usage.cc
# Under ThreadSanitizer, every inline call that holds a fence (gcc warns at
# each fence a header does not keep quiet: fence_usage.c).
for mode in "" -DFENCE_OUT_OF_LINE; do
	usage "$compiler" "$flags -fsanitize=thread $mode" fence_usage.c
	[ -z "$cxx" ] || usage "$cxx" "-x c++ $cxxflags -fsanitize=thread $mode" fence_usage.c
done
echo "$count header compilations clean"
