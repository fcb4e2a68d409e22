// SPDX-License-Identifier: GPL-2.0
/*
 * A process tree for tring_track_test.sh: this process, a child and a
 * grandchild each run THREADS threads (the first is the process's own),
 * and each thread writes MARKS markers "TAG <pid> <tid>" to tring's
 * trace_marker and makes MARKS getcpu system calls; one more child
 * exits at once. So the tree writes 3 x THREADS x MARKS of each.
 *
 * usage: tring_track_work TAG THREADS MARKS
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

int main(int argc, char **argv)
{
	int threads;
	pid_t early;

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
