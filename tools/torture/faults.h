/*
 * faults.h - the fault injectors that run as threads of their own, one
 * file each.  Each takes its struct torture_thread and returns when the
 * run stops.
 */
#ifndef QUIESCE_TORTURE_FAULTS_H
#define QUIESCE_TORTURE_FAULTS_H

void *torture_churn_main(void *arg);
void *torture_fork_main(void *arg);
void *torture_signals_main(void *arg);
void *torture_shuffle_main(void *arg);

/* Installs the SIGUSR1 handler that the signals fault relies on. */
void torture_signals_install(void);

#endif
