/*
 * Writers append to a log under freeze protection; a snapshot freezes the
 * log, copies it while no write is in flight, and thaws it.  The writers'
 * side costs one per-CPU counter update each way, no lock and no fence.
 */
#include <quiesce/freeze.h>
#include <pthread.h>
#include <stdio.h>

#define WRITERS 2
#define RECORDS 100000

static struct freezer fz;
static long log_length[WRITERS];	/* each writer's records so far */

static void *writer(void *arg)
{
	long *mine = arg;

	for (int i = 0; i < RECORDS; i++) {
		freezer_start(&fz, 0);	/* blocks while a snapshot is taken */
		(*mine)++;
		freezer_end(&fz, 0);
	}
	return NULL;
}

static long snapshot(void)
{
	long total = 0;

	freezer_freeze(&fz);	/* returns once no write is in flight */
	for (int i = 0; i < WRITERS; i++)
		total += log_length[i];
	freezer_thaw(&fz);
	return total;
}

int main(void)
{
	pthread_t t[WRITERS];

	freezer_init(&fz, 1);
	for (int i = 0; i < WRITERS; i++)
		pthread_create(&t[i], NULL, writer, &log_length[i]);
	printf("snapshot while writing: %ld records\n", snapshot());
	for (int i = 0; i < WRITERS; i++)
		pthread_join(t[i], NULL);
	long final = snapshot();

	printf("final snapshot: %ld records\n", final);
	freezer_destroy(&fz);
	return final == (long)WRITERS * RECORDS ? 0 : 1;
}
