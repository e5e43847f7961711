#!/bin/sh
# includes_match_liburcu.sh OVERLAY_INCLUDE QUIESCE_INCLUDE COMPILER
#
# Programs use what a liburcu header includes without including it
# themselves: LTTng-tools calls assert() having included <urcu/ref.h>,
# BIND 9 uses the wfcq queue having included <urcu.h>.  For each header
# the overlay shares with the liburcu installed here (its headers are the
# reference; none is installed: the test is skipped), in both linking
# modes, this asks the preprocessor (-M) which files each brings and
# fails when liburcu's brings a system header, or one of liburcu's own
# that the overlay also has, which the overlay's does not; or when the
# overlay's reaches into liburcu's directory at all.  Headers internal to
# the C library (bits/, gnu/, asm/, linux/) are left out: which of them
# come depends on the path, not on what a program may use.
set -eu
overlay=$1 quiesce=$2 compiler=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# liburcu's include directory, from where the compiler finds its header.
printf '#include <urcu/urcu-memb.h>\n' > "$work/find.c"
if ! "$compiler" -M "$work/find.c" > "$work/find.d" 2> /dev/null; then
	echo "no liburcu headers installed: nothing to compare with"
	exit 77
fi
real=$(tr ' \\' '\n\n' < "$work/find.d" | sed -n 's|/urcu/urcu-memb\.h$||p' | head -n 1)
# Its own files (the directory may be the C library's too: Debian's
# /usr/include/x86_64-linux-gnu).
own="^$real/urcu/|^$real/urcu[^/]*\\.h\$"

brought() { # header, mode flag, include directories... -> one file per line
	header=$1 mode=$2
	shift 2
	printf '#include <%s>\n' "$header" > "$work/t.c"
	"$compiler" $mode "$@" -M "$work/t.c" > "$work/t.d" 2> /dev/null || return 1
	tr ' \\' '\n\n' < "$work/t.d" | grep '^/' | sort -u
}

internal='/bits/|/gnu/|/asm/|/asm-generic/|/linux/|/sys/cdefs\.h$|/stubs'
compared=0 failed=0
for path in $(cd "$overlay" && find . -name '*.h' | sed 's|^\./||' | sort); do
	[ -f "$real/$path" ] || continue
	for mode in -U_LGPL_SOURCE -D_LGPL_SOURCE; do
		# Some of liburcu's headers do not compile alone (urcu/static/*.h
		# of the flavors): nothing to compare.
		brought "$path" $mode > "$work/real" || continue
		if ! brought "$path" $mode -I "$overlay" -I "$quiesce" > "$work/ours"; then
			echo "$path ($mode): the overlay's does not compile alone"
			failed=1
			continue
		fi
		compared=$((compared + 1))
		if grep -Eq "$own" "$work/ours"; then
			echo "$path ($mode): the overlay's reaches liburcu's headers:"
			grep -E "$own" "$work/ours"
			failed=1
		fi
		# System headers: liburcu's list, less the C library's internals.
		grep -Ev "$own|$internal" "$work/real" > "$work/want" || true
		# liburcu's own headers that the overlay has too, by its path.
		grep -E "$own" "$work/real" | sed "s|^$real/||" | while read -r file; do
			if [ -f "$overlay/$file" ]; then echo "$overlay/$file"; fi
		done >> "$work/want"
		missing=$(sort -u "$work/want" | comm -23 - "$work/ours")
		if [ -n "$missing" ]; then
			echo "$path ($mode): liburcu's brings what the overlay's does not:"
			echo "$missing"
			failed=1
		fi
	done
done
echo "$compared headers and modes compared with $real"
[ "$compared" -gt 0 ] || failed=1
exit $failed
