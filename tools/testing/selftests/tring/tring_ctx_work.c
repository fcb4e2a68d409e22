// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of tring_context_test.sh; built with frame pointers.
 *
 *   ns          in a new PID and network namespace (those the kernel
 *               has), a process and two threads write a marker each
 *               saying what they know of themselves: "ctx pid= tid=
 *               vpid= vtid= pidns= netns= comm= new=", the ids as the
 *               host sees them (from /proc, whose mount is the host's)
 *               and as the namespace does; new= 1 for a new PID
 *               namespace, 2 for a new network one, or both
 *   open N      ctx_opener() opens /dev/null N times by a raw system
 *               call (so the user stack at the call is ctx_opener's,
 *               then main's); then opens it once with each frame
 *               pointer of ctx_badfps[] as %rbp (the user stack
 *               walk must stop there and mark the stack truncated);
 *               prints "ready", and stays until its standard input
 *               closes
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MARKER "/sys/kernel/debug/tring/trace_marker"

/* The namespaces made: 1 PID, 2 network. */
static int new_ns;

/* The number after the last '/' of the link @path ("/proc/self"). */
static long link_id(const char *path)
{
	char s[64];
	ssize_t n = readlink(path, s, sizeof(s) - 1);
	char *p;

	if (n <= 0)
		return -1;
	s[n] = '\0';
	p = strrchr(s, '/');
	return strtol(p ? p + 1 : s, NULL, 10);
}

static unsigned long ns_ino(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (unsigned long)st.st_ino;
}

/* One marker of this thread, named @comm. */
static void *say(void *comm)
{
	char s[256], name[16] = "";
	int fd, n;

	prctl(PR_SET_NAME, comm);
	prctl(PR_GET_NAME, name);
	n = snprintf(s, sizeof(s),
		     "ctx pid=%ld tid=%ld vpid=%d vtid=%ld pidns=%lu netns=%lu comm=%s new=%d",
		     link_id("/proc/self"), link_id("/proc/thread-self"),
		     getpid(), (long)syscall(SYS_gettid),
		     ns_ino("/proc/thread-self/ns/pid"),
		     ns_ino("/proc/thread-self/ns/net"), name, new_ns);
	fd = open(MARKER, O_WRONLY);
	if (fd < 0 || write(fd, s, n) != n) {
		perror("marker");
		exit(1);
	}
	close(fd);
	return NULL;
}

static int ns_child(void)
{
	pthread_t t[2];
	int i;

	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, say, i ? "ctx-t2" : "ctx-t1"))
			return 1;
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	say("ctx-main");
	return 0;
}

static int ns(void)
{
	int status;
	pid_t c;

	/* Both on every test kernel; new= tells the checker what was made. */
	if (!unshare(CLONE_NEWPID | CLONE_NEWNET))
		new_ns = 3;
	else if (!unshare(CLONE_NEWPID))
		new_ns = 1;
	else if (!unshare(CLONE_NEWNET))
		new_ns = 2;
	c = fork();
	if (c < 0)
		return 1;
	if (!c)
		_exit(ns_child());
	if (waitpid(c, &status, 0) != c)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/*
 * openat(AT_FDCWD, "/dev/null", O_RDONLY), the system call made from
 * here, in a function with a frame pointer: written in assembly, since
 * the compiler gives a leaf function none even when asked to. With @fp
 * (the first argument) not 0, %rbp is @fp at the call instead, as if
 * the frame chain went there; the real one is kept on the stack.
 */
const char ctx_null[] = "/dev/null";
long ctx_opener(unsigned long fp);
asm(".text\n"
    ".globl ctx_opener\n"
    ".type ctx_opener, @function\n"
    "ctx_opener:\n"
    "\tpush %rbp\n"
    "\tmov %rsp, %rbp\n"
    "\ttest %rdi, %rdi\n"
    "\tcmovnz %rdi, %rbp\n"
    "\tmov $257, %eax\n"		/* SYS_openat */
    "\tmov $-100, %rdi\n"		/* AT_FDCWD */
    "\tlea ctx_null(%rip), %rsi\n"
    "\txor %edx, %edx\n"		/* O_RDONLY */
    "\tsyscall\n"
    "\tpop %rbp\n"
    "\tret\n"
    ".size ctx_opener, . - ctx_opener\n");

/* A frame whose caller's frame is itself: a chain that does not grow. */
static unsigned long ctx_loop_frame[2] = { 0, 0x1234 };

/*
 * Frame pointers the walk must refuse, each giving the stack [ip, mark]:
 * an unmapped page (below mmap_min_addr), a kernel address, one not
 * aligned; then the looping frame, whose return address is kept:
 * [ip, 0x1234, mark]. check-traces-ctx.sh counts them.
 */
static unsigned long ctx_badfps[] = {
	0x10000, 0xffff888000000000UL, 0x10003, 0,
};

static int badfp_opens(void)
{
	unsigned int i;
	long fd;

	ctx_loop_frame[0] = (unsigned long)ctx_loop_frame;
	ctx_badfps[3] = (unsigned long)ctx_loop_frame;
	for (i = 0; i < sizeof(ctx_badfps) / sizeof(ctx_badfps[0]); i++) {
		fd = ctx_opener(ctx_badfps[i]);
		if (fd < 0)
			return 1;
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	char c;
	int i, n;

	if (argc == 2 && !strcmp(argv[1], "ns"))
		return ns();
	if (argc != 3 || strcmp(argv[1], "open")) {
		fprintf(stderr, "usage: %s ns | open N\n", argv[0]);
		return 125;
	}
	n = atoi(argv[2]);
	for (i = 0; i < n; i++) {
		long fd = ctx_opener(0);

		if (fd < 0)
			return 1;
		close(fd);
	}
	if (badfp_opens())
		return 1;
	printf("ready\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
