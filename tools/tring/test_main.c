// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of tring-record's logic, run against a fake kernel
 * (test_fake.c): the runner, and the fixtures the tests share.
 *
 * The record logic is linked here with the fake backend instead of the
 * ioctls. A fake debugfs tree of regular files in a temporary directory
 * gives the paths, knobs and metadata. The tests compare the output byte
 * for byte with what the fake handed out and check the summary numbers
 * exactly:
 *
 *	test_save.c	what is saved and counted
 *	test_stop.c	how a run ends: drain, signals, errors, hangup
 *	test_setup.c	command line, environment, knobs, output directory
 *	test_layout.c	DIR/kernel and the summary in DIR; the statedump
 *
 *	test_record [NAME]	runs every test, or the one named
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_record.h"

struct fake fk;
static unsigned int passed, failed;
static const char *cur_test;
static bool test_failed;

void check(bool ok, const char *what, int line)
{
	if (ok)
		return;
	size_t len = strlen(fk.err);

	/* The end of what the last run said, for context. */
	if (!test_failed)
		fprintf(stderr, "--- %s: captured stderr (end):\n%s---\n",
			cur_test, fk.err + (len > 2000 ? len - 2000 : 0));
	fprintf(stderr, "FAIL %s: line %d: %s\n", cur_test, line, what);
	test_failed = true;
}

void logev(const char *fmt, ...)
{
	size_t n = strlen(fk.events);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fk.events + n, sizeof(fk.events) - n, fmt, ap);
	va_end(ap);
}

void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

/* The first line of <tring>/@rel, "" if none. */
const char *tring_first_line(const char *rel)
{
	static char buf[512];
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fk.tring, rel);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

char tring_captured[512];
static const char *tring_capture_rel;

static void tick_capture(unsigned int n)
{
	if (n != 1)
		return;
	strcpy(tring_captured, tring_first_line(tring_capture_rel));
	tr_request_stop();
}

/*
 * The next recording stops at its first tick, with the first line of
 * <tring>/@rel then (what it set up) in tring_captured.
 */
void tring_capture_at_start(const char *rel)
{
	tring_capture_rel = rel;
	tring_captured[0] = '\0';
	fk.tick = tick_capture;
}

void mkdirs(const char *fmt, ...)
{
	char path[1024], cmd[1100];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	if (system(cmd))
		exit(2);
}

void fake_tree(const char *dir, unsigned int ncpus, bool knobs)
{
	char path[1024];
	unsigned int i;

	for (i = 0; i < ncpus; i++) {
		mkdirs("%s/per_cpu/cpu%u", dir, i);
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%u/stream", dir, i);
		write_file(path, "");
	}
	if (!knobs)
		return;
	snprintf(path, sizeof(path), "%s/buffer_size_kb", dir);
	write_file(path, "1024\n");
	snprintf(path, sizeof(path), "%s/buffer_subbuf_size_kb", dir);
	write_file(path, "64\n");
	snprintf(path, sizeof(path), "%s/overwrite", dir);
	write_file(path, "0\n");
	snprintf(path, sizeof(path), "%s/trace_clock", dir);
	write_file(path, "[mono] local\n");
}

void fake_free(void)
{
	unsigned int k;
	char cmd[300];

	for (k = 0; k < MAX_RINGS; k++) {
		free(fk.rings[k].mem);
		free(fk.rings[k].handed);
	}
	if (fk.root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fk.root);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", fk.root);
	}
	memset(&fk, 0, sizeof(fk));
}

/* A fresh fake kernel: @ncpus rings of @count sub-buffers of @size. */
void fake_setup(unsigned int ncpus, uint64_t size, unsigned int count,
		       bool overwrite)
{
	unsigned int k, i;

	fake_free();
	strcpy(fk.root, "/tmp/tring-record-test.XXXXXX");
	if (!mkdtemp(fk.root)) {
		perror("mkdtemp");
		exit(2);
	}
	snprintf(fk.dbg, sizeof(fk.dbg), "%s/dbg", fk.root);
	snprintf(fk.tring, sizeof(fk.tring), "%s/tring", fk.dbg);
	snprintf(fk.out, sizeof(fk.out), "%s/out", fk.root);
	fake_tree(fk.tring, ncpus, true);
	/* The default buffer's only: a module with the statedump file. */
	snprintf(fk.statedump, sizeof(fk.statedump), "%s/statedump", fk.tring);
	write_file(fk.statedump, "");
	mkdirs("%s/instances", fk.tring);
	fk.nrings = ncpus;
	fk.now = 1000000000ULL;
	fk.is_debugfs = true;
	for (k = 0; k < ncpus; k++) {
		struct fake_ring *f = ring(k);

		f->cpu = k;
		f->size = size;
		f->count = count;
		f->overwrite = overwrite;
		f->watermark = count / 8 ? count / 8 : 1;
		f->mem = calloc(count + 1, size);
		for (i = 0; i < count; i++) {
			f->phys[i] = i;
			f->taken[i] = true;
		}
		f->spare = count;
	}
}

/* Every ring's watermark, where a test needs one other than the default. */
void fake_watermark(unsigned int wm)
{
	unsigned int k;

	for (k = 0; k < fk.nrings; k++)
		ring(k)->watermark = wm;
}

/* Run tring-record with @args (space separated), stderr captured. */
int run(const char *args)
{
	char buf[2048], *argv[64], *tok, path[400];
	int argc = 0, saved, fd, ret;
	ssize_t n;

	argv[argc++] = "tring-record";
	snprintf(buf, sizeof(buf), "%s", args);
	for (tok = strtok(buf, " "); tok && argc < 63; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;

	/* Every run's script starts from its first poll. */
	fk.waits = 0;
	snprintf(path, sizeof(path), "%s/stderr.txt", fk.root);
	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	ret = tr_main(argc, argv, &fake_ops);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);

	fd = open(path, O_RDONLY);
	n = read(fd, fk.err, sizeof(fk.err) - 1);
	fk.err[n > 0 ? n : 0] = '\0';
	close(fd);
	if (getenv("TEST_VERBOSE"))
		fprintf(stderr, "$ tring-record %s\n%s[exit %d]\n", args,
			fk.err, ret);
	return ret;
}

/* Common arguments: the fake debugfs and the output directory. */
int record(const char *extra)
{
	char args[1024];

	snprintf(args, sizeof(args), "--debugfs %s -o %s %s", fk.dbg, fk.out,
		 extra);
	return run(args);
}

/* Run tring-record with @args; its standard output into @out. */
int run_stdout(const char *args, char *out, size_t size)
{
	char path[600];
	int saved, fd, ret;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/stdout.txt", fk.root);
	fflush(stdout);
	saved = dup(1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	close(fd);
	ret = run(args);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	fd = open(path, O_RDONLY);
	n = read(fd, out, size - 1);
	close(fd);
	out[n > 0 ? n : 0] = '\0';
	return ret;
}

/* A value from out/.tring-record.summary; ~0 when missing. */
uint64_t sum(const char *key)
{
	char path[400], line[256];
	size_t len = strlen(key);
	uint64_t v = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/.tring-record.summary", fk.out);
	f = fopen(path, "r");
	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == '=')
			v = strtoull(line + len + 1, NULL, 0);
	fclose(f);
	return v;
}

bool sum_is(const char *key, const char *val)
{
	char path[400], line[256];
	size_t len = strlen(key);
	bool ok = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/.tring-record.summary", fk.out);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == '=')
			ok = !strncmp(line + len + 1, val, strlen(val)) &&
			     line[len + 1 + strlen(val)] == '\n';
	fclose(f);
	return ok;
}

/* Size of a file in the output, -1 if missing. */
long long out_size(const char *name)
{
	char path[400];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", fk.out, name);
	return stat(path, &st) ? -1 : (long long)st.st_size;
}

/* Is out/kernel/stream_<cpu> byte for byte what the fake handed out? */
bool stream_matches(unsigned int cpu)
{
	struct fake_ring *f = ring(cpu);
	char path[400];
	unsigned char *buf;
	bool ok;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/kernel/stream_%u", fk.out, cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	buf = malloc(f->handed_len + 1);
	n = read(fd, buf, f->handed_len + 1);
	close(fd);
	ok = n == (ssize_t)f->handed_len &&
	     (!n || !memcmp(buf, f->handed, f->handed_len));
	free(buf);
	return ok;
}

/*
 * Walk out/kernel/stream_<cpu> independently of the fake's log: whole packets,
 * good headers, the expected sequence numbers and payloads.
 */
bool stream_valid(unsigned int cpu, uint64_t first_seq,
			 uint64_t packets, uint64_t *events)
{
	struct fake_ring *f = ring(cpu);
	struct tring_packet_header h;
	unsigned char *buf = malloc(f->size);
	uint64_t seq = first_seq, k;
	char path[400];
	bool ok = true;
	uint32_t w[2];
	unsigned int i;
	FILE *fp;

	*events = 0;
	snprintf(path, sizeof(path), "%s/kernel/stream_%u", fk.out, cpu);
	fp = fopen(path, "r");
	for (k = 0; ok && fp && fread(buf, f->size, 1, fp) == 1; k++, seq++) {
		memcpy(&h, buf, sizeof(h));
		ok = h.magic == TRING_PACKET_MAGIC && h.cpu_id == cpu &&
		     h.packet_size == f->size * 8 &&
		     (first_seq == ~0ULL || h.packet_seq_num == seq);
		for (i = 0; ok && i < h.events_count; i++) {
			memcpy(w, buf + sizeof(h) + i * 8, 8);
			ok = w[1] == payload(cpu, h.packet_seq_num, i);
		}
		*events += h.events_count;
	}
	ok = ok && fp && k == packets && !ftell(fp) == !packets &&
	     ftell(fp) == (long)(packets * f->size);
	if (fp)
		fclose(fp);
	free(buf);
	return ok;
}

/*
 * What a CTF reader sees in the output: in out/kernel only stream_N and
 * metadata may be visible (babeltrace2 takes every other file for a
 * stream).
 */
bool trace_dir_clean(void)
{
	struct dirent *de;
	char path[400];
	bool ok = true;
	DIR *d;

	snprintf(path, sizeof(path), "%s/kernel", fk.out);
	d = opendir(path);
	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		if (strncmp(de->d_name, "stream_", 7) ||
		    strspn(de->d_name + 7, "0123456789") !=
		    strlen(de->d_name + 7) || !de->d_name[7])
			ok = false;
	}
	closedir(d);
	return ok;
}

bool err_has(const char *s)
{
	return strstr(fk.err, s) != NULL;
}

void tick_stop(unsigned int n)
{
	if (n == 1)
		tr_request_stop();
}

/* Every file's tests, in the order they run. */
static const struct test *const suites[] = {
	save_tests,
	stop_tests,
	setup_tests,
	layout_tests,
	events_tests,
	track_tests,
	relay_tests,
	probes_tests,
};

/*
 * The signals tring-record handles, as a shell started from a terminal
 * leaves them: a test runner started with them ignored (nohup, or as a
 * background job of a script, which ignores SIGINT and SIGQUIT) or
 * blocked would otherwise test what tring-record does with an ignored
 * signal (it keeps it ignored) instead of its handling.
 */
static void default_signals(void)
{
	static const int sigs[] = {
		SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ, SIGCHLD,
	};
	sigset_t none;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

int main(int argc, char **argv)
{
	const struct test *t;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	unsetenv("TRING_DEBUGFS");
	default_signals();
	printf("TAP version 13\n");
	for (i = 0; i < ARRAY_SIZE(suites); i++) {
		for (t = suites[i]; t->name; t++) {
			if (argc > 1 && strcmp(argv[1], t->name))
				continue;
			cur_test = t->name;
			test_failed = false;
			t->fn();
			fake_free();
			printf("%s %u %s\n", test_failed ? "not ok" : "ok",
			       passed + failed + 1, cur_test);
			if (test_failed)
				failed++;
			else
				passed++;
		}
	}
	printf("1..%u\n# %u passed, %u failed\n", passed + failed, passed,
	       failed);
	return failed ? 1 : 0;
}
