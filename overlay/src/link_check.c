/*
 * link_check.c - libquiesce-urcu refuses to run beside a real liburcu.
 *
 * liburcu's libraries and this one export the same names, unversioned.  In
 * a process that loaded both, each name resolves to whichever library the
 * dynamic linker met first, and a program built against the overlay can
 * get liburcu's synchronize_rcu() for quiesce's inline readers (a grace
 * period that waits for none of them), or liburcu's cds_lfht functions on
 * the overlay's node layout.  Nothing would crash at once; memory would be
 * freed under live readers.  So at load, before main(), this library looks
 * through the objects loaded so far and dies, naming the one it found, if
 * any is a liburcu library, whether the program or one of its libraries
 * linked it.  The overlay's inline read sides and cds_lfht_new() refer to
 * quiesce_urcu_linked (urcu/static/quiesce-link.h), so a link that lists a
 * real liburcu first still loads this library, and the check runs.
 * A liburcu opened later with dlopen() is not seen.
 */
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlay.h"

URCU_EXPORT const int quiesce_urcu_linked = 1;

/* Stops the walk at the first object whose file name starts "liburcu". */
static int find_liburcu(struct dl_phdr_info *info, size_t size, void *found)
{
	const char *name = info->dlpi_name, *slash = strrchr(name, '/');

	(void)size;
	if (strncmp(slash ? slash + 1 : name, "liburcu", strlen("liburcu")) != 0)
		return 0;
	*(const char **)found = name;
	return 1;
}

__attribute__((constructor)) static void refuse_real_liburcu(void)
{
	const char *found = NULL;

	dl_iterate_phdr(find_liburcu, &found);
	if (!found)
		return;
	fprintf(stderr,
		"quiesce liburcu overlay: %s is loaded in this process too, linked by the "
		"program or by a library it uses (Debian's libntirpc, for one, needs "
		"liburcu-bp; readelf -d on each library ldd lists shows which names it).  It "
		"exports the same names as the overlay (libquiesce-urcu), so some of the "
		"process's liburcu calls would reach it, and its grace periods do not wait "
		"for quiesce's readers.  Build the program, and every library of it that "
		"uses liburcu, through the overlay: "
		"PKG_CONFIG_PATH=PREFIX/lib/quiesce/urcu-pkgconfig, or "
		"-L PREFIX/lib/quiesce/liburcu for a build that names -lurcu* itself "
		"(docs/LIBURCU.md).\n",
		found);
	abort();
}
