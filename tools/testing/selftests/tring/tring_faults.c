// SPDX-License-Identifier: GPL-2.0
/*
 * tring under allocation failures: for the debug kernel with fault
 * injection (failslab, fail_page_alloc, kmemleak; make check's
 * kasan-6.1-faults run), not a kselftest of every kernel.
 *
 * Each operation a user or a module drives (a knob's buffer rebuild, an
 * instance's creation and destruction, enabling events, loading the
 * module) is first run once to count the allocations it makes; then
 * again and again with the 1st, 2nd, ... of them failing in turn
 * (/proc/thread-self/fail-nth: the failure hits only this task), each
 * time somewhere else. Every run must either succeed or fail with
 * -ENOMEM, and leave the module consistent: the knob keeps its old value
 * or takes the new one, no half-made instance or event stays behind, and
 * the buffer still records. Then random failures (probability, with
 * task-filter and make-it-fail: only this task) over a mix of the
 * operations; then, failures off, exact counts of a recording; and no
 * leak kmemleak can pin on tring.
 */
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "tring_util.h"

#define DBG		"/sys/kernel/debug"
#define FAIL_NTH	"/proc/thread-self/fail-nth"
/* At most this many failing runs of one operation (spread evenly). */
#define MAX_RUNS	120
/*
 * Loading is slow under emulation (KASAN, kmemleak: 7 s a run): fewer
 * runs, spread evenly from a first position the run's seed chooses.
 */
#define MAX_LOAD_RUNS	12
/*
 * The last allocations of a load are those of tring_events_init(), which
 * creates the events/ directories and files last: every eighth one of the
 * last LOAD_TAIL fails once, which eighth as the run's seed says, so
 * successive runs of make check fail each of them (a directory's failure
 * once led to dget()/dput() on an ERR_PTR).
 */
#define LOAD_TAIL	160
#define LOAD_TAIL_STEP	8
/* Loads with an allocation failing at random. */
#define RANDOM_LOAD_RUNS	4
/* Loads with generic events: slower still (a debugfs directory each). */
#define GENERIC_LOAD_RUNS	5

static int nth_fd = -1;

static int nth_write(unsigned int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%u", n);

	return pwrite(nth_fd, b, len, 0) == len ? 0 : -errno;
}

static long nth_read(void)
{
	char b[16];
	ssize_t r = pread(nth_fd, b, sizeof(b) - 1, 0);

	if (r <= 0)
		return -1;
	b[r] = '\0';
	return strtol(b, NULL, 10);
}

/* One step of an operation, under fail-nth; 0 or -errno. */
typedef int (*op_fn)(void *arg);

/*
 * Run @fn with the @n-th allocation of this task from now on failing
 * (0: none). Returns fn's result; *@left gets how many of the @n were
 * not reached (0: the failure was injected).
 */
static int run_nth(op_fn fn, void *arg, unsigned int n, long *left)
{
	int ret;

	*left = -1;
	if (nth_write(n))
		return -EIO;
	ret = fn(arg);
	*left = nth_read();
	nth_write(0);
	return ret;
}

/* Allocations @fn makes when none fails (it must succeed). */
static long count_allocs(op_fn fn, void *arg)
{
	const unsigned int big = 1000000;
	long left;

	if (run_nth(fn, arg, big, &left) || left <= 0)
		return -1;
	return big - left;
}

/* Write @val to an open file at offset 0; 0 or -errno. */
static int pwrite_str(int fd, const char *val)
{
	return pwrite(fd, val, strlen(val), 0) < 0 ? -errno : 0;
}

/*
 * The parameters of tring.ko's loads here: the core's load paths with
 * generic_events=0 (thousands of debugfs files fewer a load, which keeps
 * hundreds of loads within the time under KASAN), the generic events'
 * with "" (module_load's last part).
 */
static const char *load_params = "generic_events=0";

static int mod_load_fd(int fd)
{
	return syscall(__NR_finit_module, fd, load_params, 0) ? -errno : 0;
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static int read_first(const char *path)
{
	char b[32];

	if (tu_read_file(path, b, sizeof(b)) <= 0)
		return -1;
	return b[0];
}

/* The default buffer records: @n test events on CPU 0, all written. */
static int buffer_records(unsigned long n)
{
	unsigned long written, failed;

	if (tu_trigger(0, n, 32, 0, &written, &failed))
		return 0;
	return written == n && failed == 0;
}

/* Configure failslab and fail_page_alloc: only this task's GFP_KERNEL
 * allocations (and vmalloc's highmem pages) fail, and a failure is one
 * line in the log, not a stack dump.
 */
static int setup_injection(void)
{
	static const char * const attrs[] = { "failslab", "fail_page_alloc" };
	char path[128];
	unsigned int i;
	int err = 0;

	for (i = 0; i < 2; i++) {
#define SET(file, val) do {						\
		snprintf(path, sizeof(path), DBG "/%s/" file, attrs[i]); \
		err = err ?: tu_write_file(path, val);			\
	} while (0)
		SET("ignore-gfp-wait", "N");
		SET("verbose", "1");
		SET("task-filter", "Y");
		SET("probability", "0");
		SET("interval", "1");
		SET("times", "-1");
		SET("space", "0");
#undef SET
	}
	err = err ?: tu_write_file(DBG "/fail_page_alloc/ignore-gfp-highmem", "N");
	err = err ?: tu_write_file(DBG "/fail_page_alloc/min-order", "0");
	return err;
}

/* Random failures of this task's allocations at @percent (0: off). */
static int random_failures(int percent)
{
	char p[8];
	int err = 0, tries;

	/*
	 * Off: this task's own writes are still failed at random until its
	 * make-it-fail is 0 (the injection is filtered by task), so that
	 * write is retried first; after it nothing of this task fails.
	 */
	if (!percent) {
		for (tries = 0; tries < 1000; tries++) {
			err = tu_write_file("/proc/self/make-it-fail", "0");
			if (err != -ENOMEM)
				break;
		}
		if (err)
			return err;
	}
	snprintf(p, sizeof(p), "%d", percent);
	err = tu_write_file(DBG "/failslab/probability", p);
	err = err ?: tu_write_file(DBG "/fail_page_alloc/probability", p);
	return err ?: tu_write_file("/proc/self/make-it-fail", percent ? "1" : "0");
}

static int modules_fresh(void)
{
	tu_mod_unload("tring_test");
	tu_mod_unload("tring");
	return tu_mod_load("tring") ?: tu_mod_load("tring_test");
}

FIXTURE(faults) {
};

FIXTURE_SETUP(faults)
{
	ASSERT_TRUE(exists(DBG "/failslab")) {
		TH_LOG("no failslab: this kernel has no fault injection");
	}
	ASSERT_TRUE(exists(DBG "/fail_page_alloc"));
	ASSERT_EQ(0, setup_injection());
	nth_fd = open(FAIL_NTH, O_RDWR);
	ASSERT_LE(0, nth_fd);
	if (!exists(TRING_DIR "/test"))
		ASSERT_EQ(0, modules_fresh());
}

FIXTURE_TEARDOWN(faults)
{
	nth_write(0);
	random_failures(0);
	close(nth_fd);
}

/* What the failing runs of one operation did. */
struct tally {
	long allocs;		/* allocations of a run with none failing */
	unsigned int runs;	/* runs with a failure armed */
	unsigned int failed;	/* ...that returned an error */
	unsigned int absorbed;	/* ...that succeeded despite it */
};

static void tally_log(const char *what, const struct tally *t)
{
	fprintf(stderr, "# %s: %ld allocations; %u runs with one failing: %u returned -ENOMEM, %u succeeded anyway\n",
		what, t->allocs, t->runs, t->failed, t->absorbed);
}

/* The step from one failing allocation to the next: at most @max runs. */
static unsigned int stride(long allocs, long max)
{
	return allocs > max ? (allocs + max - 1) / max : 1;
}

/* --- knobs ------------------------------------------------------------ */

/* A write of @val to the open file @fd, as an operation. */
struct write_op {
	int fd;
	const char *val;
};

static int write_val(void *arg)
{
	struct write_op *w = arg;

	return pwrite_str(w->fd, w->val);
}

static long knob_value(const char *path)
{
	char b[32];

	if (tu_read_file(path, b, sizeof(b)) <= 0)
		return -1;
	return strtol(b, NULL, 10);
}

/*
 * A knob write rebuilds the default buffer: with any one allocation
 * failing, the write fails with -ENOMEM and the old buffer stays, with
 * the old value, or it succeeds; either way the buffer records.
 */
static void knob_unwinds(struct __test_metadata *_metadata, const char *name,
			 const char *a, const char *b)
{
	struct write_op k = { .fd = -1 };
	struct tally t = { 0 };
	char path[128];
	unsigned int n;
	long before, left;
	int ret;

	snprintf(path, sizeof(path), TRING_DIR "/%s", name);
	ASSERT_EQ(0, tu_write_file(path, a));
	k.fd = open(path, O_WRONLY);
	ASSERT_LE(0, k.fd);
	k.val = b;
	t.allocs = count_allocs(write_val, &k);
	close(k.fd);
	ASSERT_LT(0, t.allocs);
	for (n = 1; n <= t.allocs; n += stride(t.allocs, MAX_RUNS)) {
		before = knob_value(path);
		k.val = before == strtol(a, NULL, 10) ? b : a;
		k.fd = open(path, O_WRONLY);
		ASSERT_LE(0, k.fd);
		ret = run_nth(write_val, &k, n, &left);
		close(k.fd);
		t.runs++;
		if (ret) {
			t.failed++;
			EXPECT_EQ(-ENOMEM, ret) {
				TH_LOG("%s=%s, allocation %u failing", name, k.val, n);
			}
			EXPECT_EQ(0, left);
			EXPECT_EQ(before, knob_value(path));
		} else {
			t.absorbed += left == 0;
			EXPECT_EQ(strtol(k.val, NULL, 10), knob_value(path));
		}
		ASSERT_TRUE(buffer_records(8)) {
			TH_LOG("%s=%s, allocation %u failing: the buffer no longer records",
			       name, k.val, n);
		}
	}
	tally_log(name, &t);
	EXPECT_LT(0, t.failed);
}

TEST_F_TIMEOUT(faults, buffer_size_kb, 600)
{
	ASSERT_EQ(0, tu_reset_buffer(4, 16, 0));
	knob_unwinds(_metadata, "buffer_size_kb", "64", "128");
}

TEST_F_TIMEOUT(faults, buffer_subbuf_size_kb, 600)
{
	ASSERT_EQ(0, tu_reset_buffer(4, 16, 0));
	knob_unwinds(_metadata, "buffer_subbuf_size_kb", "4", "8");
}

TEST_F_TIMEOUT(faults, overwrite, 600)
{
	ASSERT_EQ(0, tu_reset_buffer(4, 16, 0));
	knob_unwinds(_metadata, "overwrite", "0", "1");
}

/* --- instances ---------------------------------------------------------- */

static int instance(const char *cmd)
{
	return tu_write_file(TRING_TEST_DIR "/instance", cmd);
}

/* The instance "fi" takes events: @n written, none refused. */
static int instance_records(unsigned long n)
{
	unsigned long written, failed;
	char cmd[64], res[64];

	snprintf(cmd, sizeof(cmd), "write fi 0 %lu 40", n);
	if (instance(cmd) ||
	    tu_read_file(TRING_TEST_DIR "/instance", res, sizeof(res)) <= 0 ||
	    sscanf(res, "written %lu failed %lu", &written, &failed) != 2)
		return 0;
	return written == n && failed == 0;
}

/*
 * Creating an instance (a buffer through the kernel API, its debugfs
 * files) with any one allocation failing: -ENOMEM and nothing left (the
 * name is free again), or a working instance. Destroying it likewise.
 */
TEST_F_TIMEOUT(faults, instance_create_destroy, 600)
{
	struct write_op c = { .val = "create fi 4 4" };
	struct tally t = { 0 }, d = { 0 };
	unsigned int n;
	long left;
	int ret;

	instance("destroy fi");
	c.fd = open(TRING_TEST_DIR "/instance", O_WRONLY);
	ASSERT_LE(0, c.fd);
	t.allocs = count_allocs(write_val, &c);
	ASSERT_LT(0, t.allocs);
	ASSERT_EQ(0, instance("destroy fi"));
	for (n = 1; n <= t.allocs; n += stride(t.allocs, MAX_RUNS)) {
		ret = run_nth(write_val, &c, n, &left);
		t.runs++;
		if (ret) {
			t.failed++;
			EXPECT_EQ(-ENOMEM, ret) {
				TH_LOG("create, allocation %u failing", n);
			}
			EXPECT_EQ(0, left);
			EXPECT_FALSE(exists(TRING_DIR "/instances/fi")) {
				TH_LOG("create failed (allocation %u) but left its files", n);
			}
			/* The name is free: a create now succeeds. */
			ASSERT_EQ(0, instance("create fi 4 4")) {
				TH_LOG("create after a failed one (allocation %u)", n);
			}
		} else {
			t.absorbed += left == 0;
		}
		/* A made instance is whole: its files are there. */
		EXPECT_TRUE(exists(TRING_DIR "/instances/fi/per_cpu/cpu0/stream")) {
			TH_LOG("create succeeded with allocation %u failing, without its stream file",
			       n);
		}
		ASSERT_TRUE(instance_records(10)) {
			TH_LOG("allocation %u failing: the instance does not record", n);
		}
		ASSERT_EQ(0, instance("destroy fi"));
		ASSERT_FALSE(exists(TRING_DIR "/instances/fi"));
	}
	tally_log("instance create", &t);
	EXPECT_LT(0, t.failed);

	/* Destroying, with one allocation failing: it must still go. */
	ASSERT_EQ(0, instance("create fi 4 4"));
	c.val = "destroy fi";
	d.allocs = count_allocs(write_val, &c);
	ASSERT_LE(0, d.allocs);
	for (n = 1; n <= d.allocs; n++) {
		ASSERT_EQ(0, instance("create fi 4 4"));
		ret = run_nth(write_val, &c, n, &left);
		d.runs++;
		if (ret) {
			d.failed++;
			EXPECT_EQ(-ENOMEM, ret);
			EXPECT_EQ(0, instance("destroy fi"));
		}
		EXPECT_FALSE(exists(TRING_DIR "/instances/fi"));
	}
	tally_log("instance destroy", &d);
	close(c.fd);
}

/* --- events ------------------------------------------------------------- */

/* System calls are traced: 1000 getppid() make at least 1000 events. */
static int syscalls_traced(void)
{
	long before = tu_events_written_all();
	int i;

	for (i = 0; i < 1000; i++)
		getppid();
	return before >= 0 && tu_events_written_all() >= before + 1000;
}

static int syscalls_untraced(void)
{
	long before = tu_events_written_all();
	int i;

	for (i = 0; i < 100; i++)
		getppid();
	return before >= 0 && tu_events_written_all() == before;
}

/*
 * Enabling events (registering tracepoint probes) with any one
 * allocation failing: -ENOMEM, or enabled; either way disabling then
 * leaves every event off and nothing traced, and enabling works again.
 */
static void enable_unwinds(struct __test_metadata *_metadata, const char *path)
{
	struct write_op c = { .val = "1" };
	struct tally t = { 0 };
	unsigned int n;
	long left;
	int ret;

	ASSERT_EQ(0, tu_write_file(TRING_DIR "/events/enable", "0"));
	/* Overwrite mode: events_written counts every event, none refused. */
	ASSERT_EQ(0, tu_reset_buffer(4, 16, 1));
	c.fd = open(path, O_WRONLY);
	ASSERT_LE(0, c.fd);
	t.allocs = count_allocs(write_val, &c);
	ASSERT_LT(0, t.allocs);
	ASSERT_EQ('1', read_first(path));
	ASSERT_TRUE(syscalls_traced());
	for (n = 1; n <= t.allocs; n += stride(t.allocs, MAX_RUNS)) {
		ASSERT_EQ(0, tu_write_file(TRING_DIR "/events/enable", "0"));
		ret = run_nth(write_val, &c, n, &left);
		t.runs++;
		if (ret) {
			t.failed++;
			EXPECT_EQ(-ENOMEM, ret) {
				TH_LOG("%s, allocation %u failing", path, n);
			}
			EXPECT_EQ(0, left);
		} else {
			t.absorbed += left == 0;
			EXPECT_EQ('1', read_first(path));
		}
		ASSERT_EQ(0, tu_write_file(TRING_DIR "/events/enable", "0"));
		EXPECT_EQ('0', read_first(TRING_DIR "/events/enable"));
		EXPECT_EQ('0', read_first(path));
		EXPECT_TRUE(syscalls_untraced()) {
			TH_LOG("%s, allocation %u failing: events still traced after disabling",
			       path, n);
		}
	}
	ASSERT_EQ(0, tu_write_file(path, "1"));
	EXPECT_TRUE(syscalls_traced());
	ASSERT_EQ(0, tu_write_file(TRING_DIR "/events/enable", "0"));
	ASSERT_EQ(0, tu_reset_buffer(4, 16, 0));
	close(c.fd);
	tally_log(path, &t);
	EXPECT_LT(0, t.failed);
}

TEST_F_TIMEOUT(faults, events_enable, 600)
{
	enable_unwinds(_metadata, TRING_DIR "/events/enable");
}

TEST_F_TIMEOUT(faults, group_enable, 600)
{
	enable_unwinds(_metadata, TRING_DIR "/events/syscalls/enable");
}

TEST_F_TIMEOUT(faults, event_enable, 600)
{
	enable_unwinds(_metadata, TRING_DIR "/events/syscalls/syscall_entry/enable");
}

/* --- generic events -------------------------------------------------------- */

#define TP_EVENT	TRING_DIR "/events/tring_tp/tring_tp_a"
/* The kernel's own event, in tracefs (mounted by offer_run()). */
#define TP_KERNEL_EVENT	"/sys/kernel/tracing/events/tring_tp/tring_tp_a"

static int load_tp(void *arg)
{
	(void)arg;
	return tu_mod_load("tring_tp_a");
}

/* tring_tp_a fired @n times on CPU 0: exactly @n events written there. */
static int tp_records(unsigned long n)
{
	long before = tu_events_written_all();
	char val[16];

	snprintf(val, sizeof(val), "%lu", n);
	if (before < 0 || tu_write_file(TP_EVENT "/enable", "1") ||
	    tu_write_file("/sys/module/tring_tp_a/parameters/fire", val))
		return 0;
	return !tu_write_file(TP_EVENT "/enable", "0") &&
	       tu_events_written_all() == before + (long)n;
}

/*
 * A module with a trace event loaded with one allocation of the loading
 * task failing, tring's module notifier offering its event among them:
 * the load fails with -ENOMEM, or the module is in and its event is
 * offered whole or not at all (offered by name then); either way it
 * records exactly, and the module unloads.
 */
static void offer_run(struct __test_metadata *_metadata, struct tally *t,
		      unsigned int n)
{
	long left;
	int ret;

	ret = run_nth(load_tp, NULL, n, &left);
	t->runs++;
	if (ret) {
		t->failed++;
		EXPECT_EQ(-ENOMEM, ret);
		EXPECT_FALSE(exists(TP_EVENT));
		return;
	}
	t->absorbed += left == 0;
	if (!exists(TP_EVENT)) {
		ret = tu_write_file(TRING_DIR "/events/generic_events",
				    "tring_tp:tring_tp_a\n");
		/*
		 * The failure may have cost the kernel its own event (its
		 * trace event code says "Failed to create system directory"
		 * and loads the module without it): then there is nothing
		 * to offer, and the offer says so.
		 */
		/* tracefs, to ask the kernel (EBUSY: mounted already). */
		mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
		if (ret == -ENOENT && !exists(TP_KERNEL_EVENT)) {
			TH_LOG("allocation %u failing: the kernel made no tring_tp_a event; offer refused with ENOENT",
			       n);
			ASSERT_EQ(0, tu_mod_unload("tring_tp_a"));
			return;
		}
		EXPECT_EQ(0, ret);
	}
	EXPECT_TRUE(exists(TP_EVENT "/format"));
	EXPECT_TRUE(tp_records(5)) {
		TH_LOG("tring_tp_a loaded with allocation %u failing", n);
	}
	ASSERT_EQ(0, tu_mod_unload("tring_tp_a"));
	EXPECT_FALSE(exists(TP_EVENT));
}

TEST_F_TIMEOUT(faults, generic_offer_enable, 600)
{
	struct write_op c = { .val = "1" };
	struct tally t = { 0 };
	unsigned int n;
	long left;
	int ret;

	if (!exists(TRING_DIR "/events/generic_events"))
		SKIP(return, "no generic events in this kernel");
	t.allocs = count_allocs(load_tp, NULL);
	ASSERT_LT(0, t.allocs);
	ASSERT_EQ(0, tu_mod_unload("tring_tp_a"));
	for (n = 1; n <= t.allocs; n += stride(t.allocs, MAX_RUNS))
		offer_run(_metadata, &t, n);
	tally_log("load tring_tp_a, its event offered", &t);
	EXPECT_LT(0, t.failed);
	/* Enabling it: the pin, a perf event per CPU. */
	ASSERT_EQ(0, tu_mod_load("tring_tp_a"));
	c.fd = open(TP_EVENT "/enable", O_WRONLY);
	ASSERT_LE(0, c.fd);
	memset(&t, 0, sizeof(t));
	t.allocs = count_allocs(write_val, &c);
	ASSERT_LT(0, t.allocs);
	ASSERT_EQ(0, tu_write_file(TP_EVENT "/enable", "0"));
	for (n = 1; n <= t.allocs; n++) {
		ret = run_nth(write_val, &c, n, &left);
		t.runs++;
		t.failed += !!ret;
		t.absorbed += !ret && left == 0;
		if (ret)
			EXPECT_EQ(-ENOMEM, ret);
		EXPECT_EQ(ret ? '0' : '1', read_first(TP_EVENT "/enable"));
		ASSERT_EQ(0, tu_write_file(TP_EVENT "/enable", "0"));
		EXPECT_TRUE(tp_records(3)) {
			TH_LOG("enable with allocation %u failing", n);
		}
	}
	close(c.fd);
	tally_log(TP_EVENT "/enable", &t);
	EXPECT_LT(0, t.failed);
	ASSERT_EQ(0, tu_mod_unload("tring_tp_a"));
}

/* --- random failures, then exact counts ----------------------------------- */

struct counted {
	uint32_t subbuf_size;
	uint64_t events;
};

/* Count the test events in a CPU's stream (intact ones only). */
static int count_test_events(const uint8_t *pkt, const struct tring_subbuf *sb,
			     void *arg)
{
	struct counted *c = arg;
	struct tring_dec_event ev;
	struct tring_dec d;
	int r;

	(void)sb;
	if (tring_dec_init(&d, pkt, c->subbuf_size))
		return -EBADMSG;
	while ((r = tring_dec_next(&d, tu_test_len, NULL, &ev)) == 1) {
		const struct tring_test_payload *p = (const void *)ev.payload;

		if (ev.id != TRING_TEST_EVENT_ID)
			continue;
		if (tu_test_payload_ok(ev.payload, sizeof(*p) + p->data_len))
			return -EBADMSG;
		c->events++;
	}
	return r < 0 ? -EBADMSG : 0;
}

/*
 * Random failures of this task's allocations (3%) while it rebuilds
 * the buffer, creates, fills and destroys instances and enables and
 * disables events, 30 rounds: every operation succeeds or fails with
 * -ENOMEM. Then, failures off: every operation works, and 500 events
 * written on each CPU are read back exactly, none lost.
 */
TEST_F_TIMEOUT(faults, random_failures_then_exact_counts, 900)
{
	static const char * const ops[][2] = {
		{ TRING_DIR "/buffer_size_kb", "128" },
		{ TRING_TEST_DIR "/instance", "create fr 4 4" },
		{ TRING_DIR "/events/enable", "1" },
		{ TRING_TEST_DIR "/instance", "write fr 0 20 40" },
		{ TRING_DIR "/buffer_subbuf_size_kb", "8" },
		{ TRING_DIR "/events/enable", "0" },
		{ TRING_DIR "/overwrite", "1" },
		{ TRING_TEST_DIR "/instance", "destroy fr" },
		{ TRING_DIR "/buffer_size_kb", "64" },
		{ TRING_DIR "/buffer_subbuf_size_kb", "4" },
		{ TRING_DIR "/overwrite", "0" },
	};
	unsigned int round, i, failed = 0, runs = 0, other = 0;
	unsigned long written, refused;
	int ret, cpu, err;

	/*
	 * Round 0 runs without failures: every page and page table this
	 * loop touches is in place before failures can hit its faults.
	 */
	for (round = 0; round < 31; round++) {
		if (round == 1)
			ASSERT_EQ(0, random_failures(3));
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			ret = tu_write_file(ops[i][0], ops[i][1]);
			runs++;
			if (!ret)
				continue;
			failed++;
			/*
			 * A failed create leaves no "fr" to write to or to
			 * destroy; a failed destroy leaves one to create.
			 */
			if (ret != -ENOMEM && ret != -ENOENT && ret != -EEXIST) {
				other++;
				fprintf(stderr, "# %s <- %s: %s\n", ops[i][0],
					ops[i][1], strerror(-ret));
			}
		}
	}
	ASSERT_EQ(0, random_failures(0));
	fprintf(stderr, "# %u operations, %u failed\n", runs, failed);
	EXPECT_EQ(0, other);
	EXPECT_LT(0, failed);

	/* Failures off: everything works again, exactly. */
	instance("destroy fr");
	EXPECT_FALSE(exists(TRING_DIR "/instances/fr"));
	ASSERT_EQ(0, tu_write_file(TRING_DIR "/events/enable", "0"));
	ASSERT_EQ(0, tu_reset_buffer(4, 64, 0));
	ASSERT_EQ(0, instance("create fr 4 4"));
	EXPECT_TRUE(exists(TRING_DIR "/instances/fr/per_cpu/cpu0/stream"));
	ASSERT_EQ(0, instance("destroy fr"));
	for (cpu = 0; cpu < tu_nr_cpus(); cpu++) {
		struct tring_status st;
		struct tu_stream s;
		struct counted c = { 0 };
		uint64_t pos;

		ASSERT_EQ(0, tu_trigger(cpu, 500, 48, 0, &written, &refused));
		EXPECT_EQ(500, written);
		EXPECT_EQ(0, refused);
		ASSERT_EQ(0, tu_stream_open(&s, cpu));
		c.subbuf_size = s.info.subbuf_size;
		ASSERT_EQ(0, tu_flush(&s, &pos));
		err = tu_drain(&s, pos, 2000, count_test_events, &c);
		EXPECT_LT(0, err);
		EXPECT_EQ(500, c.events);
		ASSERT_EQ(0, tu_status(&s, &st));
		EXPECT_EQ(500, st.events_written);
		EXPECT_EQ(0, st.events_discarded);
		tu_stream_close(&s);
	}
	ASSERT_EQ(0, tu_reset_buffer(4, 8, 0));
}

/* --- leaks ------------------------------------------------------------ */

/*
 * kmemleak's report after two scans (an object is reported once it has
 * been unreferenced for 5 s and through a whole scan): no leaked object
 * was allocated by tring's code, by name, or by code of a module since
 * unloaded (its frames print as bare addresses: only tring's modules
 * are ever loaded in this guest).
 */
static void no_tring_leak(struct __test_metadata *_metadata)
{
	static char report[1 << 20];
	char *line, *save = NULL;
	int n, bad = 0;

	sleep(6);
	ASSERT_EQ(0, tu_write_file(DBG "/kmemleak", "scan")) {
		TH_LOG("kmemleak is off");
	}
	sleep(1);
	ASSERT_EQ(0, tu_write_file(DBG "/kmemleak", "scan"));
	n = tu_read_file(DBG "/kmemleak", report, sizeof(report));
	ASSERT_LE(0, n);
	for (line = strtok_r(report, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *frame = strstr(line, "] ");

		if (strstr(line, "tring") ||
		    (frame && !strncmp(frame, "] 0x", 4))) {
			fprintf(stderr, "# leak: %s\n", line);
			bad++;
		}
	}
	fprintf(stderr, "# kmemleak report: %d bytes, %d lines about tring\n",
		n, bad);
	EXPECT_EQ(0, bad);
}

TEST_F_TIMEOUT(faults, no_leak, 600)
{
	no_tring_leak(_metadata);
}

/* --- loading -------------------------------------------------------------- */

static int load_fd = -1;

static int load(void *arg)
{
	(void)arg;
	return mod_load_fd(load_fd);
}

/*
 * One load of tring.ko with allocation @n failing: the load fails with
 * -ENOMEM and leaves nothing (no module, no debugfs files; a clean load
 * then works), or it succeeds and that module records. The clean load
 * is left to the next run when it fails a later allocation, @next: that
 * load goes through every step this one undid (a KASAN load takes 3 s),
 * and would meet what this one left behind (a directory, a cache) as an
 * error other than -ENOMEM.
 */
static void load_run(struct __test_metadata *_metadata, struct tally *t,
		     unsigned int n, unsigned int next)
{
	long left;
	int ret;

	fprintf(stderr, "# load, allocation %u of %ld failing\n", n, t->allocs);
	ret = run_nth(load, NULL, n, &left);
	t->runs++;
	if (ret) {
		t->failed++;
		EXPECT_EQ(-ENOMEM, ret) {
			TH_LOG("load, allocation %u failing", n);
		}
		EXPECT_FALSE(exists("/sys/module/tring"));
		EXPECT_FALSE(exists(TRING_DIR));
		if (next > n)
			return;
		/* Nothing left behind: a clean load works. */
		ASSERT_EQ(0, mod_load_fd(load_fd)) {
			TH_LOG("a clean load after allocation %u failed", n);
		}
	} else {
		/* The load that absorbed the failure is the one tested. */
		t->absorbed += left == 0;
		EXPECT_TRUE(exists(TRING_DIR "/per_cpu/cpu0/stream"));
	}
	ASSERT_EQ(0, tu_mod_load("tring_test"));
	ASSERT_TRUE(buffer_records(8));
	ASSERT_EQ(0, tu_mod_unload("tring_test"));
	ASSERT_EQ(0, tu_mod_unload("tring"));
}

/* @next if it is a run's position (at most @allocs), else 0. */
static unsigned int within(unsigned int next, long allocs)
{
	return next <= allocs ? next : 0;
}

/*
 * Loading tring.ko with allocations failing: every 1/MAX_LOAD_RUNS-th of
 * them from a seeded first one, every LOAD_TAIL_STEP-th of the last
 * LOAD_TAIL, then
 * RANDOM_LOAD_RUNS more at random
 * (TRING_FAULTS_SEED repeats a run's positions: its seed is in the log),
 * so that successive runs of make check reach other ones; all without
 * generic events. Then with them: GENERIC_LOAD_RUNS spread over the
 * allocations they add (the last of a load: tring_generic_init()). Then
 * no leak, the last load unloaded.
 */
TEST_F_TIMEOUT(faults, module_load, 1800)
{
	struct tally t = { 0 };
	unsigned int n, seed, i, step;
	const char *env = getenv("TRING_FAULTS_SEED");
	long core, tail;

	ASSERT_EQ(0, tu_mod_unload("tring_test"));
	ASSERT_EQ(0, tu_mod_unload("tring"));
	load_fd = open(TRING_MODDIR "/tring.ko", O_RDONLY);
	ASSERT_LE(0, load_fd);
	t.allocs = count_allocs(load, NULL);
	ASSERT_LT(0, t.allocs);
	ASSERT_EQ(0, tu_mod_unload("tring"));
	seed = env ? strtoul(env, NULL, 0) : (unsigned int)time(NULL);
	fprintf(stderr, "# random positions: TRING_FAULTS_SEED=%u\n", seed);
	srand(seed);
	step = stride(t.allocs, MAX_LOAD_RUNS);
	for (n = 1 + seed % step; n <= t.allocs; n += step)
		load_run(_metadata, &t, n, within(n + step, t.allocs));
	tail = t.allocs > LOAD_TAIL ? t.allocs - LOAD_TAIL + 1 : 1;
	for (n = tail + seed % LOAD_TAIL_STEP; n <= t.allocs; n += LOAD_TAIL_STEP)
		load_run(_metadata, &t, n, within(n + LOAD_TAIL_STEP, t.allocs));
	for (i = 0; i < RANDOM_LOAD_RUNS; i++)
		load_run(_metadata, &t, 1 + rand() % t.allocs, 0);
	/* With generic events: their allocations follow the others. */
	load_params = "";
	core = t.allocs;
	t.allocs = count_allocs(load, NULL);
	ASSERT_LT(0, t.allocs);
	ASSERT_EQ(0, tu_mod_unload("tring"));
	fprintf(stderr, "# generic events add %ld allocations to a load\n",
		t.allocs - core);
	step = stride(t.allocs - core + 1, GENERIC_LOAD_RUNS);
	for (n = core; n <= t.allocs; n += step)
		load_run(_metadata, &t, n, within(n + step, t.allocs));
	load_run(_metadata, &t, t.allocs, 0);
	load_params = "generic_events=0";
	close(load_fd);
	tally_log("load tring.ko", &t);
	EXPECT_LT(0, t.failed);
	no_tring_leak(_metadata);
	ASSERT_EQ(0, modules_fresh());
}

TEST_HARNESS_MAIN
