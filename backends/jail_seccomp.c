/*
 * backends/jail_seccomp.c - the seccomp filter of `locus jail`: no file
 * gets a setuid or setgid bit from inside the jail.
 *
 * The jail runs as the caller's uid with every capability dropped and
 * no_new_privs set, so nothing inside gains privilege.  What remains is
 * the host's view of files the jail writes: run by root, a command could
 * leave `cp /bin/sh x; chmod 4755 x` in the workspace, a setuid-root shell
 * any host user could run later.  The filter refuses (EPERM) every mode
 * change or creation that asks for S_ISUID or S_ISGID: chmod, fchmod,
 * fchmodat, fchmodat2, open, openat, creat, mknod, mknodat.  Calls it
 * cannot inspect (openat2's mode sits in a struct; io_uring's in a ring)
 * fail with ENOSYS, which libc and runtimes take as "not supported" and
 * fall back from.  A foreign system-call ABI (i386, x32) gets ENOSYS for
 * everything: its numbers are not the ones checked.
 *
 * The program is classic BPF, handed to bwrap as a file (`--seccomp FD`).
 */
#define _GNU_SOURCE
#include "internal.h"
#include "jail.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define JAIL_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define JAIL_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef JAIL_ARCH

/* A system call and the argument that holds a mode (-1: refuse it). */
typedef struct mode_call {
	long nr;
	int arg;
} mode_call;

/* clang-format off */
static const mode_call mode_calls[] = {
#ifdef __NR_chmod
	{__NR_chmod, 1},
#endif
#ifdef __NR_creat
	{__NR_creat, 1},
#endif
#ifdef __NR_open
	{__NR_open, 2},
#endif
#ifdef __NR_mknod
	{__NR_mknod, 1},
#endif
	{__NR_fchmod, 1},
	{__NR_fchmodat, 2},
	{452 /* fchmodat2 */, 2},
	{__NR_openat, 3},
	{__NR_mknodat, 2},
	{437 /* openat2 */, -1},
	{425 /* io_uring_setup */, -1},
};
/* clang-format on */

#define NCALLS (sizeof mode_calls / sizeof mode_calls[0])
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (size_t)(i))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define ERRNO(e) (SECCOMP_RET_ERRNO | ((e)&SECCOMP_RET_DATA))

/*
 * Layout: arch check; load nr; for call i, "jeq nr -> block i"; allow;
 * then per call a block: load the mode argument, and it with 06000, allow
 * when zero, else EPERM (or ENOSYS at once for the refused ones).
 */
static size_t build(struct sock_filter *f)
{
	size_t n = 0;
	f[n++] = (struct sock_filter)BPF_STMT(
	    BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	                                      JAIL_ARCH, 1, 0);
	f[n++] = (struct sock_filter)RET(ERRNO(ENOSYS));
	f[n++] = (struct sock_filter)BPF_STMT(
	    BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
	/* x32 numbers carry bit 30: another ABI */
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
	                                      0x40000000u, 0, 1);
	f[n++] = (struct sock_filter)RET(ERRNO(ENOSYS));
#endif
	size_t dispatch = n;
	n += NCALLS;                                         /* the jeqs */
	f[n++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW); /* others */
	for (size_t i = 0; i < NCALLS; i++) {
		size_t block = n;
		/* jump offsets are relative to the next instruction */
		f[dispatch + i] = (struct sock_filter)BPF_JUMP(
		    BPF_JMP | BPF_JEQ | BPF_K, (unsigned)mode_calls[i].nr,
		    (unsigned char)(block - (dispatch + i) - 1), 0);
		if (mode_calls[i].arg < 0) {
			f[n++] = (struct sock_filter)RET(ERRNO(ENOSYS));
			continue;
		}
		f[n++] = (struct sock_filter)BPF_STMT(
		    BPF_LD | BPF_W | BPF_ABS,
		    (unsigned)ARG_LO(mode_calls[i].arg));
		f[n++] = (struct sock_filter)BPF_JUMP(
		    BPF_JMP | BPF_JSET | BPF_K, 06000u, 0, 1);
		f[n++] = (struct sock_filter)RET(ERRNO(EPERM));
		f[n++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	}
	return n;
}

int lh_jail_seccomp_fd(locus_error *err)
{
	struct sock_filter prog[8 + NCALLS * 5];
	size_t n = build(prog);
	int fd = memfd_create("locus-jail-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return lu_err(err, LOCUS_EIO, "memfd_create: %s",
		              strerror(errno));
	size_t len = n * sizeof prog[0], off = 0;
	const char *p = (const char *)prog;
	while (off < len) {
		ssize_t w = write(fd, p + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return lu_err(err, LOCUS_EIO,
			              "cannot write the seccomp filter");
		}
		off += (size_t)w;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return lu_err(err, LOCUS_EIO, "lseek: %s", strerror(errno));
	}
	return fd;
}

#else

int lh_jail_seccomp_fd(locus_error *err)
{
	return lu_err(err, LOCUS_EUSAGE,
	              "locus jail has no seccomp filter for this "
	              "architecture");
}

#endif
