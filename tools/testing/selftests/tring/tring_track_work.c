// SPDX-License-Identifier: GPL-2.0
/*
 * A process tree for tring_track_test.sh: this process, a child and a
 * grandchild each run THREADS threads (the first is the process's own),
 * and each thread writes MARKS markers "TAG <pid> <tid>" to tring's
 * trace_marker and makes MARKS getcpu system calls; one more child
 * exits at once. So the tree writes 3 x THREADS x MARKS of each.
 *
 * With "churn N FILE": N children that exit at once, each one's PID
 * written to FILE (tracking/pid, replacing the set) by a second thread
 * while this one reaps the child, so that the lookup of the PID races
 * with its release; prints "TAKEN REFUSED" (writes refused with ESRCH).
 *
 * usage: tring_track_work TAG THREADS MARKS
 *        tring_track_work churn N FILE
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MARKER	"/sys/kernel/debug/tring/trace_marker"

static const char *tag;
static int marks;

static void *work(void *unused)
{
	unsigned int cpu;
	char text[96];
	int fd, i, n;

	fd = open(MARKER, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(MARKER);
		exit(1);
	}
	n = snprintf(text, sizeof(text), "%s %d %ld", tag, getpid(),
		     (long)syscall(SYS_gettid));
	/* EINVAL while the marker event is off (the untracked tree). */
	for (i = 0; i < marks; i++) {
		if (write(fd, text, n) != n && errno != EINVAL) {
			perror("write " MARKER);
			exit(1);
		}
		syscall(SYS_getcpu, &cpu, NULL, NULL);
	}
	close(fd);
	return unused;
}

/* THREADS - 1 threads beside this one, all working. */
static void work_threads(int threads)
{
	pthread_t t[16];
	int i;

	for (i = 0; i < threads - 1; i++)
		if (pthread_create(&t[i], NULL, work, NULL)) {
			fprintf(stderr, "pthread_create failed\n");
			exit(1);
		}
	work(NULL);
	for (i = 0; i < threads - 1; i++)
		pthread_join(t[i], NULL);
}

/* Fork a process that works and, if @depth, forks one more. */
static pid_t spawn(int threads, int depth)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid)
		return pid;
	if (depth)
		spawn(threads, depth - 1);
	work_threads(threads);
	while (wait(NULL) > 0)
		;
	exit(0);
}

/* The churn's writer: the PIDs from the pipe, written as they come. */
struct churn {
	int pipe[2];
	const char *file;
	int taken, refused, err;
};

static void *churn_writer(void *arg)
{
	struct churn *c = arg;
	char text[16];
	pid_t pid;
	int fd, n;

	while (read(c->pipe[0], &pid, sizeof(pid)) == sizeof(pid)) {
		n = snprintf(text, sizeof(text), "%d", pid);
		fd = open(c->file, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0) {
			c->err = errno;
			break;
		}
		if (write(fd, text, n) == n)
			c->taken++;
		else if (errno == ESRCH)
			c->refused++;
		else
			c->err = errno;
		close(fd);
	}
	return NULL;
}

static int churn(int n, const char *file)
{
	struct churn c = { .file = file };
	pthread_t t;
	pid_t pid;
	int i;

	if (pipe(c.pipe) || pthread_create(&t, NULL, churn_writer, &c)) {
		perror("churn");
		return 1;
	}
	for (i = 0; i < n && !c.err; i++) {
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid)
			_exit(0);
		if (write(c.pipe[1], &pid, sizeof(pid)) != sizeof(pid)) {
			perror("write pipe");
			return 1;
		}
		waitpid(pid, NULL, 0);
	}
	close(c.pipe[1]);
	pthread_join(t, NULL);
	if (c.err) {
		fprintf(stderr, "%s: %s\n", file, strerror(c.err));
		return 1;
	}
	printf("%d %d\n", c.taken, c.refused);
	return 0;
}

int main(int argc, char **argv)
{
	int threads;
	pid_t early;

	if (argc == 4 && !strcmp(argv[1], "churn"))
		return churn(atoi(argv[2]), argv[3]);
	if (argc != 4) {
		fprintf(stderr, "usage: %s TAG THREADS MARKS\n", argv[0]);
		return 2;
	}
	tag = argv[1];
	threads = atoi(argv[2]);
	marks = atoi(argv[3]);
	if (threads < 1 || threads > 16 || marks < 1) {
		fprintf(stderr, "%s: THREADS 1-16, MARKS >= 1\n", argv[0]);
		return 2;
	}
	early = fork();
	if (!early)
		_exit(0);
	spawn(threads, 1);
	work_threads(threads);
	while (wait(NULL) > 0)
		;
	return 0;
}
