/* A configuration that many threads read and one thread replaces. */
#include <quiesce/rcu.h>
#include <stdio.h>
#include <stdlib.h>

struct config { int timeout_ms; };
static struct config *live_config;

static int read_timeout(void)
{
	rcu_read_lock();	/* no atomic, no fence, no lock */
	int t = rcu_dereference(live_config)->timeout_ms;
	rcu_read_unlock();
	return t;
}

static void set_timeout(int ms)
{
	struct config *fresh = malloc(sizeof(*fresh)), *old;

	fresh->timeout_ms = ms;
	old = rcu_xchg_pointer(&live_config, fresh);
	synchronize_rcu();	/* every reader that could see old is done */
	free(old);
}

int main(void)
{
	set_timeout(100);
	set_timeout(250);
	printf("timeout: %d ms\n", read_timeout());
	return read_timeout() == 250 ? 0 : 1;
}
