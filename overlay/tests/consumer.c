/*
 * consumer.c - a small program written as liburcu's users write them, for
 * install_consume_urcu.sh: it builds against the installed overlay only.
 * CONSUMER_<FLAVOR> picks the flavor header; _LGPL_SOURCE the linking mode.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(CONSUMER_QSBR)
#include <urcu-qsbr.h>
#elif defined(CONSUMER_BP)
#include <urcu-bp.h>
#else
#if defined(CONSUMER_MB)
#define RCU_MB
#elif defined(CONSUMER_SIGNAL)
#define RCU_SIGNAL
#endif
#include <urcu.h>
#endif
#include <urcu/uatomic.h>

struct config {
	int value;
	struct rcu_head head;
};

static struct config *live;
static int freed;

static void free_config(struct rcu_head *head)
{
	uatomic_inc(&freed);
	free(caa_container_of(head, struct config, head));
}

static void *reader(void *arg)
{
	int v;

	rcu_register_thread();
	rcu_read_lock();
	v = rcu_dereference(live)->value;
	rcu_read_unlock();
	rcu_unregister_thread();
	return (void *)(long)v;
}

int main(void)
{
	struct config *c = malloc(sizeof(*c)), *old;
	pthread_t t;
	void *ret;

	c->value = 1;
	rcu_assign_pointer(live, c);
	pthread_create(&t, NULL, reader, NULL);
	pthread_join(t, &ret);
	c = malloc(sizeof(*c));
	c->value = 2;
	old = rcu_xchg_pointer(&live, c);
	synchronize_rcu();
	free(old);
	call_rcu(&c->head, free_config);
	rcu_barrier();
	printf("read %ld, freed %d\n", (long)ret, uatomic_read(&freed));
	return (long)ret == 1 && uatomic_read(&freed) == 1 ? 0 : 1;
}
