#!/bin/sh
# Every fast path of the public headers is inlined where a program calls
# it.  For each primitive, compiles at -O2 a file of eight functions that
# each call its fast paths, and fails if the object holds an out-of-line
# copy of a quiesce_ function: a local text symbol, the clone a compiler
# makes when it declines to inline (gcc did so for percpu_down_read() and
# freezer_start() in any file that called them twice).  The slow paths
# that the headers mark QUIESCE_HEADER_COLD are out of line on purpose.
# With the build's compiler, and with gcc and clang both when installed.
# The control: a fast path of the test's own, compiled with -fno-inline,
# must be found.
set -eu
source=$1 compiler=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cold=$(grep -h -A1 '^QUIESCE_HEADER_COLD' "$source"/include/quiesce/*.h |
	grep -o 'quiesce_[a-z0-9_]*(' | tr -d '(' | sort -u)
[ -n "$cold" ] || { echo "no QUIESCE_HEADER_COLD function found in the headers"; exit 1; }

# Prints the quiesce_ functions that the object holds out of line.
out_of_line() { # object
	nm "$1" | awk '$2 == "t" { print $3 }' | grep '^quiesce_' | grep -v '\.cold' |
		while read -r sym; do
			base=${sym%%.*}
			echo "$cold" | grep -qx "$base" || echo "$sym"
		done
}

# Writes $work/t.c: the header, the declarations, eight callers of the body.
program() { # header, declarations, body (#: the caller's number)
	{
		printf '#include <quiesce/%s>\n%s\n' "$1" "$2"
		for i in 0 1 2 3 4 5 6 7; do
			printf 'void work%s(int *p);\nvoid work%s(int *p) { %s }\n' "$i" "$i" \
				"$(echo "$3" | sed "s/#/$i/g")"
		done
	} > "$work/t.c"
}

count=0
check() { # compiler, header, declarations, body
	program "$2" "$3" "$4"
	if ! "$1" -std=gnu11 -O2 -I "$source/include" -c -o "$work/t.o" "$work/t.c" 2> "$work/err"; then
		echo "$2 ($1):"; cat "$work/err"; exit 1
	fi
	copies=$(out_of_line "$work/t.o")
	if [ -n "$copies" ]; then
		echo "$2 ($1 -O2): not inlined:" $copies; exit 1
	fi
	count=$((count + 1))
}

compilers=$compiler
for other in gcc clang; do
	path=$(command -v "$other" || true)
	[ -z "$path" ] || [ "$path" = "$(command -v "$compiler")" ] || compilers="$compilers $path"
done

for cc in $compilers; do
	check "$cc" rcu.h "" "rcu_read_lock(); p[#]++; rcu_read_unlock();"
	check "$cc" rcu_mb.h "" "rcu_mb_read_lock(); p[#]++; rcu_mb_read_unlock();"
	check "$cc" rcu_qsbr.h "" \
		"rcu_qsbr_read_lock(); p[#]++; rcu_qsbr_read_unlock(); rcu_qsbr_quiescent_state();"
	check "$cc" srcu.h "DEFINE_SRCU(d);" \
		"int x = srcu_read_lock(&d); p[#]++; srcu_read_unlock(&d, x);"
	check "$cc" percpu_rwsem.h "struct percpu_rw_semaphore s;" \
		"percpu_down_read(&s); p[#]++; percpu_up_read(&s);
		 if (percpu_down_read_trylock(&s)) percpu_up_read(&s);"
	check "$cc" freeze.h "struct freezer fz;" \
		"freezer_start(&fz, 0); p[#]++; freezer_end(&fz, 0);
		 if (freezer_trystart(&fz, 1)) freezer_end(&fz, 1);"
	check "$cc" rwsem.h "struct rw_semaphore r;" \
		"down_read(&r); p[#]++; up_read(&r); down_write(&r); p[#]++; up_write(&r);
		 if (down_read_trylock(&r)) up_read(&r); if (down_write_trylock(&r)) up_write(&r);"
	check "$cc" ref.h "struct quiesce_ref rf; void rel(struct quiesce_ref *r);" \
		"quiesce_ref_get(&rf); if (quiesce_ref_get_unless_zero(&rf)) p[#]++;
		 if (quiesce_ref_put(&rf, rel)) p[#]++;"

	program compiler.h "static inline void quiesce_control(int *p) { p[0]++; }" "quiesce_control(p);"
	"$cc" -std=gnu11 -O2 -fno-inline -I "$source/include" -c -o "$work/t.o" "$work/t.c"
	if [ "$(out_of_line "$work/t.o")" != quiesce_control ]; then
		echo "control ($cc): the out-of-line quiesce_control was not found"; exit 1
	fi
done
echo "$count fast-path files inlined"
