#!/usr/bin/env bash
# ensure-deps.sh PROFILE: finds what `make PROFILE` needs that this machine
# lacks, and installs it when it can.
#
#   test    the compilers and tools the test suite needs; valgrind
#   bench   the compilers, and the peers the report compares against
#           (liburcu, Concurrency Kit) and gnuplot for its plots
#   ci      both, plus clang and the aarch64 cross compiler
#
# Each need is probed for directly (a command, or a header that compiles),
# so the script is right on any distribution; the package names are
# Debian's.  Run as root where apt-get exists, it installs what is missing
# and says so.  Otherwise it prints the one apt-get line that would, and
# goes on without the optional parts, naming them; it fails only when
# something the build cannot do without is missing.
set -uo pipefail

profile=${1:-test}

have_command() { command -v "$1" >/dev/null 2>&1; }
have_header() {
	have_command cc && printf '#include <%s>\n' "$1" | cc -E -x c - >/dev/null 2>&1
}

# package|required (1) or optional (0)|probe...
needs_test=(
	"cmake|1|have_command cmake"
	"make|1|have_command make"
	"gcc|1|have_command gcc"
	"binutils|1|have_command objdump"
	"pkg-config|1|have_command pkg-config"
	"valgrind|0|have_command valgrind"
)
needs_bench=(
	"cmake|1|have_command cmake"
	"make|1|have_command make"
	"gcc|1|have_command gcc"
	"liburcu-dev|0|have_header urcu/urcu-memb.h"
	"libck-dev|0|have_header ck_rwlock.h"
	"gnuplot-nox|0|have_command gnuplot"
)
needs_ci=(
	"${needs_test[@]}"
	"liburcu-dev|0|have_header urcu/urcu-memb.h"
	"libck-dev|0|have_header ck_rwlock.h"
	"gnuplot-nox|0|have_command gnuplot"
	"clang|1|have_command clang"
	"gcc-aarch64-linux-gnu|1|have_command aarch64-linux-gnu-gcc"
)

case "$profile" in
test) needs=("${needs_test[@]}") ;;
bench) needs=("${needs_bench[@]}") ;;
ci) needs=("${needs_ci[@]}") ;;
*)
	echo "usage: $0 test|bench|ci" >&2
	exit 2
	;;
esac

# Lists the packages whose probe fails: "required" or "optional" ones.
missing() {
	local want=$1 entry pkg required probe
	for entry in "${needs[@]}"; do
		IFS='|' read -r pkg required probe <<<"$entry"
		[ "$want" = required ] && [ "$required" != 1 ] && continue
		[ "$want" = optional ] && [ "$required" = 1 ] && continue
		eval "$probe" || echo "$pkg"
	done | sort -u
}

lacking=$(missing required; missing optional)
lacking=$(echo $lacking)
[ -z "$lacking" ] && exit 0

if [ "$(id -u)" = 0 ] && have_command apt-get; then
	echo "ensure-deps: installing what 'make $profile' needs: $lacking"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	if ! { apt-get update -qq && apt-get install -y -qq $lacking >/dev/null; }; then
		echo "ensure-deps: apt-get could not install all of: $lacking" >&2
	fi
else
	echo "ensure-deps: missing for 'make $profile': $lacking"
	echo "ensure-deps: to install them: sudo apt-get install -y $lacking"
fi

required_left=$(missing required)
optional_left=$(missing optional)
if [ -n "$optional_left" ]; then
	echo "ensure-deps: going on without: $(echo $optional_left)" \
		"(the tests or rows that need them are skipped and named)"
fi
if [ -n "$required_left" ]; then
	echo "ensure-deps: cannot go on without: $(echo $required_left)" >&2
	exit 1
fi
exit 0
