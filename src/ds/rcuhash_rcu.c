/*
 * rcuhash_rcu.c - quiesce's own domains as a table's RCU (params.rcu).
 *
 * A table names the RCU its readers use with a struct of calls
 * (quiesce/rcuhash.h).  A struct of the caller's own is called through
 * its pointers: an indirect call for every reader check and every section
 * an update opens.  The two domains quiesce offers besides the default
 * have structs here, which quiesce_rcuhash_new() recognizes by address:
 * a table given one calls the domain inline (rcuhash_internal.h), as it
 * does the default RCU.  Their calls below serve a caller that copies one
 * or calls through it; a copy is a struct of the caller's own.
 *
 * An update of a QSBR table from a thread that is not online
 * (rcuhash_internal.h, rcuhash_enter()) comes online through QSBR's own
 * calls and goes back through them, and their ordering is QSBR's (the
 * top of src/rcu/qsbr.c): coming online ((c): a store of the phase and
 * a full fence; registering, (d): under the registry lock), either a
 * grace period's scan sees the thread and waits for it, or the update's
 * loads see what was unlinked before that grace period (ht->tbl switched
 * past the array it retires) and never reach that array; going back
 * ((b): a release store of OFFLINE; unregistering, (d)), the update's
 * accesses come before the end of any grace period that waited for it.
 */
#include <quiesce/rcu_mb.h>
#include <quiesce/rcu_qsbr.h>

#include "ds/rcuhash_internal.h"

static void qsbr_read_lock(void)
{
	quiesce_qsbr_read_lock();
}

static void qsbr_read_unlock(void)
{
	quiesce_qsbr_read_unlock();
}

static int qsbr_read_ongoing(void)
{
	return quiesce_qsbr_read_ongoing();
}

const struct quiesce_rcuhash_rcu quiesce_rcuhash_rcu_qsbr = {
	.read_lock = qsbr_read_lock,
	.read_unlock = qsbr_read_unlock,
	.read_ongoing = qsbr_read_ongoing,
	.call_rcu = quiesce_qsbr_call_rcu,
};

static void mb_read_lock(void)
{
	quiesce_rcu_mb_read_lock();
}

static void mb_read_unlock(void)
{
	quiesce_rcu_mb_read_unlock();
}

static int mb_read_ongoing(void)
{
	return quiesce_rcu_mb_read_ongoing();
}

const struct quiesce_rcuhash_rcu quiesce_rcuhash_rcu_mb = {
	.read_lock = mb_read_lock,
	.read_unlock = mb_read_unlock,
	.read_ongoing = mb_read_ongoing,
	.call_rcu = quiesce_call_rcu_mb,
};

enum rcuhash_entry quiesce_rcuhash_qsbr_enter(void)
{
	/* quiesce_qsbr_thread_online() refuses a thread that is not registered. */
	if (quiesce_qsbr_reader_self.ctr == QUIESCE_QSBR_UNREGISTERED) {
		quiesce_qsbr_register_thread();		/* online from here on */
		return RCUHASH_ENTRY_REGISTERED;
	}
	quiesce_qsbr_thread_online();
	return RCUHASH_ENTRY_ONLINE;
}

void quiesce_rcuhash_qsbr_leave(enum rcuhash_entry how)
{
	if (how == RCUHASH_ENTRY_REGISTERED)
		quiesce_qsbr_unregister_thread();
	else
		quiesce_qsbr_thread_offline();
}

enum rcuhash_reader quiesce_rcuhash_reader_of(const struct quiesce_rcuhash_rcu *rcu)
{
	if (!rcu)
		return RCUHASH_READER_DEFAULT;
	if (rcu == &quiesce_rcuhash_rcu_qsbr)
		return RCUHASH_READER_QSBR;
	if (rcu == &quiesce_rcuhash_rcu_mb)
		return RCUHASH_READER_MB;
	return RCUHASH_READER_CALLS;
}
