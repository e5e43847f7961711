#!/bin/sh
# headers_of_liburcu.sh OVERLAY_INCLUDE COMPILER
#
# A program moves to the overlay with its #include lines unchanged, so the
# overlay has every header liburcu installs: those of 0.13.2, 0.14.2 and
# 0.15.6 (their include/Makefile.am, listed below) and those of the liburcu
# installed here, if any.  Left out, as docs/LIBURCU.md says: urcu/arch/*.h
# and urcu/uatomic/*.h (per-architecture internals) and
# urcu/static/urcu-common.h (liburcu's internal state).
set -eu
overlay=$1 compiler=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/listed" <<'LIST'
urcu-bp.h
urcu-call-rcu.h
urcu-defer.h
urcu-flavor.h
urcu-pointer.h
urcu-qsbr.h
urcu.h
urcu/annotate.h
urcu/arch.h
urcu/assert.h
urcu/call-rcu.h
urcu/cds.h
urcu/compiler.h
urcu/config.h
urcu/debug.h
urcu/defer.h
urcu/flavor.h
urcu/futex.h
urcu/hlist.h
urcu/lfstack.h
urcu/list.h
urcu/map/clear.h
urcu/map/urcu-bp.h
urcu/map/urcu-mb.h
urcu/map/urcu-memb.h
urcu/map/urcu-qsbr.h
urcu/map/urcu-signal.h
urcu/map/urcu.h
urcu/pointer.h
urcu/rcuhlist.h
urcu/rculfhash.h
urcu/rculfqueue.h
urcu/rculfstack.h
urcu/rculist.h
urcu/ref.h
urcu/static/lfstack.h
urcu/static/pointer.h
urcu/static/rculfqueue.h
urcu/static/rculfstack.h
urcu/static/urcu-bp.h
urcu/static/urcu-mb.h
urcu/static/urcu-memb.h
urcu/static/urcu-qsbr.h
urcu/static/urcu-signal-nr.h
urcu/static/urcu-signal.h
urcu/static/urcu.h
urcu/static/wfcqueue.h
urcu/static/wfqueue.h
urcu/static/wfstack.h
urcu/syscall-compat.h
urcu/system.h
urcu/tls-compat.h
urcu/uatomic.h
urcu/uatomic_arch.h
urcu/urcu-bp.h
urcu/urcu-futex.h
urcu/urcu-mb.h
urcu/urcu-memb.h
urcu/urcu-poll.h
urcu/urcu-qsbr.h
urcu/urcu-signal.h
urcu/urcu.h
urcu/urcu_ref.h
urcu/wfcqueue.h
urcu/wfqueue.h
urcu/wfstack.h
LIST

# The installed liburcu's own headers, found as includes_match_liburcu.sh does.
printf '#include <urcu/urcu-memb.h>\n' > "$work/find.c"
if "$compiler" -M "$work/find.c" > "$work/find.d" 2> /dev/null; then
	real=$(tr ' \\' '\n\n' < "$work/find.d" | sed -n 's|/urcu/urcu-memb\.h$||p' | head -n 1)
	(cd "$real" && find urcu -name '*.h' && ls urcu*.h) >> "$work/listed"
fi

missing=$(sort -u "$work/listed" |
	  grep -Ev '^urcu/(arch|uatomic)/|^urcu/static/urcu-common\.h$' |
	  while read -r h; do [ -f "$overlay/$h" ] || echo "$h"; done)
if [ -n "$missing" ]; then
	echo "liburcu installs headers the overlay does not have:"
	echo "$missing"
	exit 1
fi
echo "$(sort -u "$work/listed" | wc -l) header names of liburcu, all in the overlay or left out on purpose"
