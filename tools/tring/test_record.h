/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring-record's unit test: the fake kernel's state, and what the tests
 * share (test_main.c, test_fake.c).
 */
#ifndef _TRING_TEST_RECORD_H
#define _TRING_TEST_RECORD_H

#include "record.h"

#define MAX_RINGS	8
#define MAX_SLOTS	64
#define WLOG_MAX	256

/* One CPU's fake ring, modelled on kernel/trace/tring_core.c. */
struct fake_ring {
	unsigned int cpu;
	bool open;
	bool busy;			/* another reader has it: EBUSY */
	bool no_ring;			/* CPU not online yet: ENXIO */
	bool dead;			/* its buffer was destroyed: STATUS
					 * says so, poll() as the kernel's */
	uint64_t size;
	unsigned int count;
	bool overwrite;
	unsigned int watermark;
	unsigned char *mem;		/* count + 1 (spare) sub-buffers */
	unsigned int phys[MAX_SLOTS];	/* slot -> physical sub-buffer */
	bool taken[MAX_SLOTS];		/* the reader swapped it out */
	unsigned int spare;		/* the reader's physical sub-buffer */
	uint64_t wseq;			/* next packet to open */
	uint64_t rseq;			/* consumed, in sub-buffers */
	unsigned int held;
	unsigned int open_events;	/* in the open packet */
	bool open_dropped;		/* the open packet found the ring full */
	int commit_delay;		/* waits until a flushed packet completes; <0 never */
	unsigned int discard_after_flush;	/* events refused right after a flush */
	bool flush_pending;
	uint64_t flush_pos;
	uint64_t events_written, discarded, overwritten, too_big;

	unsigned char *handed;		/* copy of each packet handed out */
	size_t handed_len, handed_cap;
	unsigned int gets, max_asked, batch_max_seen;
	int get_err;			/* GET fails with this errno */
	int eagain_once;		/* GET says EAGAIN although readable */
	unsigned int wm_set;		/* last SET_WATERMARK */
	char path[512];			/* path it was opened with */
};

struct wlog {
	int cnt;
	size_t len;
	bool from_map;
};

struct fake {
	struct fake_ring rings[MAX_RINGS];
	unsigned int nrings;
	char root[256], dbg[300], tring[320], out[300], statedump[340];
	uid_t euid;
	bool is_debugfs;
	bool tty;
	uint64_t now;
	int knob_err;
	int statedump_err;		/* writing the statedump file fails */
	unsigned int statedumps;	/* writes to it */
	void (*tick)(unsigned int n);
	unsigned int waits;
	int wait_err;			/* ops->wait() fails with this errno */
	bool signal_at_open;		/* SIGINT while opening the streams */
	bool no_log;
	bool no_empty;			/* flush_ts() refuses empty packets */
	int nice;			/* the recorder's nice value */
	int nice_err;			/* set_nice() fails with this errno */
	unsigned int live_flushes;
	/* writev */
	struct wlog wlog[WLOG_MAX];
	unsigned int writevs;
	unsigned int not_from_map;
	size_t short_max;
	unsigned int eintr_every;
	bool budget_on;
	size_t budget;
	/*
	 * "knob x=y", "open N", "wm N V", "nice N", "statedump", "get N"
	 * (first)
	 */
	char events[8192];
	char err[1 << 16];		/* captured stderr */
	size_t mem_a, mem_b;
};

extern struct fake fk;

#define CHECK(cond) check((cond), #cond, __LINE__)

struct test {
	const char *name;
	void (*fn)(void);
};

/* Each file's tests, ended by { NULL }. */
extern const struct test save_tests[], stop_tests[], setup_tests[],
	layout_tests[], events_tests[], track_tests[], relay_tests[],
	probes_tests[];

/* test_fake.c: the fake writer and backend */
extern const struct tr_ops fake_ops;
struct fake_ring *ring(unsigned int cpu);
uint32_t payload(unsigned int cpu, uint64_t seq, unsigned int i);
void partial(unsigned int cpu, unsigned int events);
void produce(unsigned int cpu, unsigned int n, unsigned int events);
uint64_t ready(struct fake_ring *f);

/* test_main.c: checks and fixtures */
void check(bool ok, const char *what, int line);
void logev(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void write_file(const char *path, const char *text);
const char *tring_first_line(const char *rel);
extern char tring_captured[512];
void tring_capture_at_start(const char *rel);
void mkdirs(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fake_tree(const char *dir, unsigned int ncpus, bool knobs);
void fake_free(void);
void fake_setup(unsigned int ncpus, uint64_t size, unsigned int count,
		bool overwrite);
void fake_watermark(unsigned int wm);
int run(const char *args);
int record(const char *extra);
int run_stdout(const char *args, char *out, size_t size);
uint64_t sum(const char *key);
bool sum_is(const char *key, const char *val);
long long out_size(const char *name);
bool stream_matches(unsigned int cpu);
bool stream_valid(unsigned int cpu, uint64_t first_seq, uint64_t packets,
		  uint64_t *events);
bool trace_dir_clean(void);
bool err_has(const char *s);
void tick_stop(unsigned int n);

#endif /* _TRING_TEST_RECORD_H */
