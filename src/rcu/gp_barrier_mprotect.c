/*
 * gp_barrier_mprotect.c - the heavy barrier from a TLB shootdown, for when
 * membarrier() is missing: no help needed from the reader threads.
 *
 * The barrier writes to a private, locked page of its own, so that the
 * page's entry is present in the page table and may sit in the TLB of
 * every CPU that runs one of this process's threads, and then takes away
 * the right to write with mprotect().  Before mprotect() returns, the
 * kernel must make every such CPU drop the entry.
 *
 * Valid on x86 (x86-64 and i386) only.  There the kernel drops remote
 * entries by an interrupt (IPI) to each CPU in the process's mm_cpumask,
 * which holds every CPU currently running one of its threads, and waits
 * until each has run the flush.  Each such CPU takes the interrupt between
 * two instructions of the thread it runs: the stores that thread made
 * before are drained to memory before the CPU acknowledges the flush (x86
 * stores become visible in program order, the acknowledgment among them),
 * and the return from the interrupt (iret) is serializing, so that the
 * thread's next loads are performed after it, and see what the barrier's
 * caller stored before mprotect() (the kernel's locked instructions on the
 * way in order those).  A thread that runs on no CPU at that moment passes
 * the scheduler's full barriers when it is switched out and in again, as
 * membarrier() itself relies on.  This is how .NET's
 * FlushProcessWriteBuffers works where membarrier() is missing.
 *
 * Not valid where TLB invalidation is broadcast by the hardware without
 * interrupting the other CPUs: arm64 (TLBI ... IS plus DSB), powerpc
 * (tlbie), and x86 CPUs with AMD's INVLPGB, which Linux 6.15 and later use
 * for processes that run on several CPUs.  There no instruction of the
 * reader's CPU runs on its behalf, so its store buffer and pipeline are
 * not touched and nothing is ordered.  On those machines this backend is
 * never chosen (x86 with INVLPGB is recognized by its "invlpgb" CPU flag).
 */
#include "rcu/gp_barrier.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/cancel.h"
#include "common/diag.h"

#if defined(__x86_64__) || defined(__i386__)
static unsigned long *page;
static size_t page_size;
/* Serializes barriers: each must see the page writable and leave it so. */
static pthread_mutex_t page_lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether this CPU may invalidate other CPUs' TLBs without interrupting them. */
static bool broadcast_tlb_invalidation(void)
{
	int cancel = quiesce_cancel_off();	/* stdio's reads (cancel.h) */
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	bool found = true;	/* cannot tell, so do not rely on interrupts */

	if (f) {
		found = false;
		while (!found && fgets(line, sizeof(line), f))
			found = !strncmp(line, "flags", 5) && strstr(line, " invlpgb");
		fclose(f);
	}
	quiesce_cancel_restore(cancel);
	return found;
}

/*
 * The child of fork() has no memory lock (they are not inherited), and the
 * page is shared copy-on-write until one side writes: lock the child's own
 * copy, or give up, since a page that can be swapped out is not a barrier.
 */
static void mprotect_child_after_fork(void)
{
	pthread_mutex_init(&page_lock, NULL);
	/* A barrier in progress at fork() may have left it read-only. */
	mprotect(page, page_size, PROT_READ | PROT_WRITE);
	if (mlock(page, page_size))
		quiesce_die("the mprotect() grace-period barrier cannot lock its page in the "
			    "child of fork(): raise RLIMIT_MEMLOCK or use membarrier()");
}

bool quiesce_gp_barrier_mprotect_init(const char **why_not)
{
	void *p;

	if (broadcast_tlb_invalidation()) {
		*why_not = "this CPU invalidates TLBs by broadcast (INVLPGB), without interrupts";
		return false;
	}
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	p = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		*why_not = "mmap() failed";
		return false;
	}
	/*
	 * Locked, so that reclaim never takes the page away between the write
	 * and mprotect(): a missing entry needs no shootdown.
	 */
	if (mlock(p, page_size)) {
		munmap(p, page_size);
		*why_not = "mlock() of one page failed (RLIMIT_MEMLOCK)";
		return false;
	}
	page = p;
	pthread_atfork(NULL, NULL, mprotect_child_after_fork);
	return true;
}

void quiesce_gp_barrier_mprotect(void)
{
	pthread_mutex_lock(&page_lock);
	/*
	 * The write makes the entry present, writable and dirty; taking the
	 * write right away changes it, which forces the shootdown (a CPU must
	 * not keep writing through a stale entry).  The page is left
	 * writable, so that a child of fork() can lock it.
	 */
	QUIESCE_STORE(page, *page + 1);
	if (mprotect(page, page_size, PROT_READ) ||
	    mprotect(page, page_size, PROT_READ | PROT_WRITE))
		quiesce_die("mprotect() of the grace-period barrier page failed: %s",
			    strerror(errno));
	pthread_mutex_unlock(&page_lock);
}
#else
bool quiesce_gp_barrier_mprotect_init(const char **why_not)
{
	*why_not = "on this architecture a TLB shootdown interrupts no CPU, so it is no barrier";
	return false;
}

void quiesce_gp_barrier_mprotect(void)
{
	quiesce_die("the mprotect() grace-period barrier is not valid on this architecture");
}
#endif
