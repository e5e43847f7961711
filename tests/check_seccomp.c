/*
 * check_seccomp.c - the seccomp filter the tests use to make membarrier()
 * fail (check.h, check_deny_membarrier()).
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#if defined(__x86_64__)
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_AARCH64
#elif defined(__i386__)
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_I386
#else
#error "check_seccomp.c: name this architecture's AUDIT_ARCH_* value"
#endif

void check_deny_membarrier(int err)
{
	struct sock_filter code[] = {
		/* Another ABI's numbers name other calls: allow them. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_NATIVE, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_membarrier, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "PR_SET_NO_NEW_PRIVS: %s",
	      strerror(errno));
	/* prctl() where seccomp() itself is missing (valgrind knows no seccomp()). */
	CHECK(syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0 ||
		      (errno == ENOSYS && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0),
	      "seccomp(SET_MODE_FILTER): %s", strerror(errno));
}
