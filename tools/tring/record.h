/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring-record: declarations shared by the record logic (record.c and
 * the stages it runs: setup.c, events.c, output.c, loop.c, summary.c;
 * options.c and usage.c; util.c below them all),
 * the real stream backend (stream_ioctl.c) and the unit test (test_*.c),
 * which links the same logic against a fake backend.
 *
 * Everything that touches the kernel or the clock goes through struct
 * tr_ops, so the test can hand out synthetic packets, inject errors and
 * run the clock as fast as it likes.
 */
#ifndef _TRING_RECORD_H
#define _TRING_RECORD_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <linux/tring.h>

#include "relay.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Sub-buffers asked for per TRING_IOC_GET; the kernel hands out <= 64. */
#define TR_BATCH		64
/* Highest CPU number accepted (x86 MAXSMP's NR_CPUS). */
#define TR_MAX_CPUS		8192
/* With --live, new event declarations are looked for this often at most. */
#define TR_LIVE_META_NS		(2ULL * 1000000000ULL)
/* Give up draining a CPU whose flushed packet stays incomplete this long. */
#define TR_DRAIN_TIMEOUT_NS	(2ULL * 1000000000ULL)
/*
 * The recorder's nice value by default: a workload of many runnable
 * tasks in its scheduling group must not keep it from the rings.
 */
#define TR_NICE			(-10)

/* Exit statuses (documented in the usage text); see derive_exit_status(). */
enum {
	TR_EXIT_OK		= 0,
	TR_EXIT_USAGE		= 1,	/* bad option or output directory */
	TR_EXIT_SETUP		= 2,	/* not root, no debugfs/module, busy */
	TR_EXIT_OUTPUT		= 3,	/* disk full or other write error */
	TR_EXIT_STREAM		= 4,	/* a stream ioctl failed mid-way */
	TR_EXIT_ABORTED		= 5,	/* second signal cut the drain short */
	/* With a COMMAND (otherwise its own exit status) */
	TR_EXIT_COMMAND_FAILED	= 125,	/* tring-record failed, any reason */
	TR_EXIT_COMMAND_NOT_RUN	= 126,	/* exec of COMMAND failed */
	TR_EXIT_COMMAND_NOT_FOUND = 127,	/* COMMAND not found */
};

/* Why recording stopped. */
enum tr_stop {
	TR_STOP_NONE,
	TR_STOP_SIGNAL,
	TR_STOP_DURATION,
	TR_STOP_OUTPUT,		/* write to the output failed */
	TR_STOP_STREAM,		/* every stream failed */
	TR_STOP_HANGUP,		/* every stream hung up (buffer removed) */
	TR_STOP_COMMAND,	/* COMMAND exited */
	TR_STOP_MAX_SIZE,	/* --max-size reached (without --rotate) */
};

/* The statedump asked of the kernel at the start (summary's statedump=). */
enum tr_statedump {
	TR_STATEDUMP_SKIPPED,	/* --no-statedump, or --instance */
	TR_STATEDUMP_DONE,
	TR_STATEDUMP_UNSUPPORTED, /* the module has no statedump file */
	TR_STATEDUMP_FAILED,	/* the write failed */
};

/* How the final drain ended. */
enum tr_drain {
	TR_DRAIN_SKIPPED,	/* not attempted, or cut short by an error */
	TR_DRAIN_COMPLETE,	/* every CPU reached its flush position */
	TR_DRAIN_TIMEOUT,	/* some packet stayed incomplete */
	TR_DRAIN_ABORTED,	/* second signal */
};

#define TR_MAX_SPECS	64
/* --probe options, and a definition's longest line (the kernel's). */
#define TR_MAX_PROBES	32
/* Longest -C list (the kernel takes up to 2047 bytes). */
#define TR_CTX_TEXT	2048
#define TR_PROBE_MAX_LINE	4094
#define TR_MAX_PIDS	256

struct tr_opts {
	const char *output;		/* NULL: default name */
	char default_output[64];
	double duration;		/* seconds; 0: until a signal */
	long buffer_kb;			/* knobs; -1: leave alone */
	long subbuf_kb;
	int overwrite;
	const char *clock;		/* NULL: leave alone */
	unsigned long watermark;	/* 0: kernel default */
	int nice;			/* --nice, while recording */
	bool nice_given;		/* else TR_NICE unless already lower */
	bool cpus_given;
	unsigned char cpus[TR_MAX_CPUS / 8];	/* bitmap from --cpus */
	const char *instance;
	const char *debugfs;
	bool debugfs_given;		/* --debugfs or TRING_DEBUGFS */
	bool quiet;
	bool force;
	bool no_statedump;
	const char *specs[TR_MAX_SPECS];	/* -e, in order */
	const char *filters[TR_MAX_SPECS];	/* --filter of each, or NULL */
	unsigned int nspecs;
	const char *probe_defs[TR_MAX_PROBES];	/* --probe, in order */
	char probe_specs[TR_MAX_PROBES][136];	/* each one's GROUP:EVENT */
	unsigned int nprobes;
	const char *funcs[TR_MAX_PROBES];	/* --function, in order */
	unsigned int nfuncs;
	char contexts[TR_CTX_TEXT];	/* -C and --callstack, comma-joined */
	bool kstack;			/* callstack-kernel among them */
	bool ustack;			/* callstack-user among them */
	bool list;			/* --list: print the events, exit */
	bool reset;			/* --reset: the module as loaded, exit */
	uint64_t max_size;		/* --max-size, bytes; 0: none */
	uint64_t rotate_size;		/* --rotate SIZE, bytes; 0: none */
	uint64_t rotate_ns;		/* --rotate SECONDS; 0: none */
	const char *list_glob;		/* its pattern, or NULL */
	pid_t pids[TR_MAX_PIDS];	/* -p */
	unsigned int npids;
	bool follow;			/* --follow */
	char **command;			/* -- COMMAND [ARGS], or NULL */
	bool net;			/* -o net://: to LTTng's relay */
	const char *session;		/* --session, or NULL */
	long live_us;			/* --live; 0: not live */
	const char *summary;		/* --summary FILE, or NULL */
};

/* An event of the default buffer, for -e (events.c). */
struct tr_event {
	char group[64];
	char name[96];
	bool on;		/* its enable read 1 before the run */
	bool want;		/* selected by -e */
	bool changed;		/* its enable was written: write it back */
	const char *filter;	/* --filter to put in force, or NULL */
	char *old_filter;	/* the filter found, while ours is in force */
};

/* A probe of --probe (probes.c). */
struct tr_probe {
	const char *file;	/* "kprobe_events" or "uprobe_events" */
	char group[64];
	char event[64];
	bool made;		/* written: remove it at exit */
};

/* One CPU's stream and what was saved from it. */
struct tr_cpu {
	unsigned int cpu;
	int fd;				/* stream file (real backend) */
	void *priv;			/* backend's own state (fake) */
	const unsigned char *map;	/* read-only mapping of the ring */
	struct tring_info info;
	int out_fd;			/* <outdir>/kernel/stream_<cpu> */

	bool readable;			/* set by ops->wait() */
	bool hup;			/* set by ops->wait(): no more data will come */
	bool failed;			/* a stream ioctl failed: ignore it */
	/*
	 * No ring yet: the CPU has not been online since the buffer was
	 * made (open gave ENXIO). Tried again each second and before the
	 * drain: recorded from when it comes online.
	 */
	bool absent;
	bool drained;			/* read_pos reached flush_pos */
	uint64_t flush_pos;
	uint64_t next_seq;		/* expected seq of the next packet */

	/* What went to disk. */
	uint64_t subbufs;
	uint64_t bytes;
	uint64_t file_bytes;		/* in its file of the chunk written */
	uint64_t events;
	uint64_t skipped;		/* seq gaps: packets overwritten */
	/* events_discarded of the last packet saved: what the trace says */
	uint64_t trace_discarded;
	/* Taken from the ring but not saved (output error). */
	uint64_t unsaved_subbufs;
	uint64_t unsaved_events;
	bool bad_header_warned;

	/* Streaming (relay.c) */
	uint64_t relay_handle;		/* the relay's stream */
	uint64_t relay_seq;		/* packets sent: next net_seq_num */
	bool relay_added;
	uint64_t live_seq;		/* relay_seq at the last live tick */

	struct tring_status start;	/* STATUS right after opening */
	struct tring_status last;	/* latest STATUS */
};

struct tr_rec;

/*
 * The backend. Functions return 0 or a negative errno unless said
 * otherwise; they retry EINTR themselves where retrying is right.
 */
struct tr_ops {
	uid_t (*euid)(void);
	/* Is @path the root of a mounted debugfs? */
	bool (*is_debugfs)(const char *path);
	bool (*isatty)(int fd);
	uint64_t (*now_ns)(void);		/* CLOCK_MONOTONIC */
	/* Write @val to the knob file @path. */
	int (*knob_write)(const char *path, const char *val);

	int (*open)(struct tr_cpu *c, const char *path);
	int (*info)(struct tr_cpu *c, struct tring_info *info);
	/* Map c->info.map_size bytes read-only into c->map. */
	int (*map)(struct tr_cpu *c);
	void (*close)(struct tr_cpu *c);	/* unmap and close */
	/* Take up to @max sub-buffers into @sb; -EAGAIN when none. */
	int (*get)(struct tr_cpu *c, struct tring_subbuf *sb, unsigned int max,
		   unsigned int *count);
	int (*put)(struct tr_cpu *c, uint64_t seq, unsigned int count);
	int (*status)(struct tr_cpu *c, struct tring_status *st);
	int (*flush)(struct tr_cpu *c, uint64_t *pos);
	/*
	 * A flush for live streaming (optional): with @empty, a packet even
	 * when nothing was written; *@ts gets the CPU's clock.
	 */
	int (*flush_ts)(struct tr_cpu *c, bool empty, uint64_t *pos,
			uint64_t *ts);
	int (*set_watermark)(struct tr_cpu *c, uint32_t wm);
	/* The calling thread's nice value: read it, or set it (-errno). */
	int (*get_nice)(int *nice);
	int (*set_nice)(int nice);
	/*
	 * Sleep until one of @set is readable, @timeout_ms passes (-1: no
	 * limit) or a signal arrives; set ->readable, and ->hup when the
	 * stream hung up. @n may be 0: just sleep. Returns the number
	 * readable, 0 on timeout, -EINTR on a signal.
	 */
	int (*wait)(struct tr_rec *r, struct tr_cpu **set, unsigned int n,
		    int timeout_ms);

	/* Output files. May write less than asked, or fail with -errno. */
	ssize_t (*writev)(int fd, const struct iovec *iov, int cnt);
	/* System calls made so far (optional: NULL in the test backend). */
	uint64_t (*syscalls)(void);
};

struct tr_rec {
	const struct tr_ops *ops;
	struct tr_opts opt;
	bool status_line;

	char tring_dir[4096];		/* <debugfs>/tring */
	char buf_dir[4096];		/* the buffer's directory */
	char out_dir[4096];		/* DIR: the summary */
	char trace_dir[4096];		/* DIR/kernel: the CTF trace */
	bool out_created;		/* this run made out_dir */
	bool trace_created;		/* this run made trace_dir */
	bool out_prepared;		/* out_dir checked and usable */
	int lock_fd[2];			/* flock()ed: <tring>, the instance */
	int out_dirfd, trace_dirfd;	/* DIR, DIR/kernel: files made in them */
	char trace_sub[64];		/* trace_dir in DIR: kernel, chunk_N/kernel */
	/* --rotate, --max-size (rotate.c) */
	unsigned int chunk;		/* the chunk written: DIR/chunk_<chunk> */
	unsigned int oldest_chunk;	/* the oldest one kept */
	uint64_t chunk_bytes;		/* in the chunk written */
	uint64_t chunk_t0;		/* when it began */
	uint64_t kept_bytes;		/* in the chunks kept */
	uint64_t total_bytes;		/* saved (or sent) in all */
	uid_t owner_uid;		/* SUDO_UID: the output's owner, or -1 */
	gid_t owner_gid;
	bool chown_warned;
	struct tr_relay *net;		/* -o net://: the relay, else NULL */
	enum tr_statedump statedump;

	/* -p, --follow, COMMAND (track.c) */
	char track_pid_path[4096];	/* <debugfs>/tring/tracking/pid */
	char track_follow_path[4096];
	char *old_pids;			/* what tracking/pid held */
	bool old_follow;
	bool tracking_changed;		/* written: restore at exit */
	pid_t child;			/* COMMAND, or 0 */
	int child_go;			/* write end of its go pipe, or -1 */
	int old_nice;			/* the nice value tring-record had */
	int nice;			/* the one it records with */
	bool reniced;			/* set to opt.nice: COMMAND takes old_nice */
	bool child_started;		/* it was let exec */
	bool child_reaped;
	int child_status;		/* from waitpid() */

	struct tr_probe probes[TR_MAX_PROBES];	/* --probe */
	char *old_ctx;			/* -C: the context list found, or NULL */
	size_t old_ctx_len;
	bool ctx_changed;		/* context written: restore it */
	char *old_funcs;		/* --function: the set found, or NULL */
	size_t old_funcs_len;
	bool funcs_changed;		/* functions written: restore it */
	bool meta_final;		/* the final metadata copied already */
	struct tr_event *events;	/* with -e: every event, at setup */
	unsigned int nevents, events_cap;
	bool events_scanned;		/* r->events as the start found them */

	struct tr_cpu *cpus;
	unsigned int ncpus;
	unsigned int nabsent;		/* of them, with c->absent */
	uint64_t t_absent;		/* when they were last tried */
	struct tr_cpu **set;		/* scratch for ops->wait() */
	struct pollfd *pfd;		/* scratch for the real ops->wait() */
	sigset_t wait_mask;		/* signal mask while sleeping */
	sigset_t old_mask;
	bool signals_caught;		/* our handler is installed */
	bool signals_blocked;

	struct tring_subbuf sb[TR_BATCH];
	struct iovec iov[TR_BATCH];

	/* How the run ended: what derive_exit_status() derives the status from. */
	uint64_t t_start;
	uint64_t t_stop;
	enum tr_stop stop;
	enum tr_drain drain;
	bool output_error;		/* a write or close of the output failed */
	bool stream_error;		/* a stream, or waiting on them, failed */
	int exit_status;		/* set once, at the end */

	uint64_t t_live;		/* next live tick (--live) */
	uint64_t t_meta;		/* next metadata update (--live) */
	bool live_no_empty;		/* the module makes no empty packets */

	/* Status line state. */
	uint64_t t_status;
	uint64_t status_events;
	uint64_t status_bytes;
};

/*
 * The trace goes to DIR/kernel, as an LTTng session directory holds its
 * kernel trace; the summary stays in DIR.
 */
#define TR_TRACE_SUBDIR		"kernel"

#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_MSEC	1000000ULL

/* record.c: the run, signals; util.c: messages (tr_note() obeys --quiet) */
int tr_main(int argc, char **argv, const struct tr_ops *ops);
void tr_request_stop(void);
void tr_stop_sigset(sigset_t *set);
void tr_default_signals(void);
extern volatile sig_atomic_t tr_stop_requests;
void tr_msg(const char *level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tr_clear_status(void);
void tr_status_dirty(void);
void tr_status_reset(void);
int tr_join(char *dst, size_t n, const char *a, const char *b);
int tr_read_small_file(const char *path, char *buf, size_t size);
int tr_read_small_at(int dfd, const char *path, char *buf, size_t size);
int tr_read_whole_file(const char *path, char **text, size_t *len);
void tr_iov_advance(struct iovec **iov, int *cnt, size_t n);

#define tr_err(...)	tr_msg("error: ", __VA_ARGS__)
#define tr_warn(...)	tr_msg("warning: ", __VA_ARGS__)
#define tr_note(r, ...)	do { if (!(r)->opt.quiet) tr_msg("", __VA_ARGS__); } while (0)

/* setup.c: environment, knobs, streams */
int tr_check_environment(struct tr_rec *r);
int tr_lock(struct tr_rec *r);
void tr_unlock(struct tr_rec *r);
int tr_apply_knobs(struct tr_rec *r);
int tr_set_knob(struct tr_rec *r, const char *knob, const char *val);
void tr_set_priority(struct tr_rec *r);
int tr_open_streams(struct tr_rec *r);
void tr_open_late(struct tr_rec *r);
const struct tr_cpu *tr_first_open(const struct tr_rec *r);
void tr_statedump(struct tr_rec *r);

/* rotate.c: --rotate and --max-size */
int tr_parse_rotate(struct tr_opts *o, const char *arg);
void tr_chunk_start(struct tr_rec *r);
int tr_before_batch(struct tr_rec *r, uint64_t bytes);
void tr_after_batch(struct tr_rec *r, uint64_t bytes);

/* reset.c: --reset, and what an earlier run left */
int tr_reset(struct tr_rec *r);
void tr_warn_leftovers(struct tr_rec *r);

/* probes.c: --probe; elf.c: a symbol's offset in an ELF file */
int tr_parse_probe(struct tr_opts *o, const char *arg);
int tr_make_probes(struct tr_rec *r);
int tr_remove_probes(struct tr_rec *r);
void tr_list_probes(struct tr_rec *r);
int tr_parse_function(struct tr_opts *o, const char *arg);
/* context.c */
int tr_parse_context(struct tr_opts *o, const char *arg);
int tr_parse_callstack(struct tr_opts *o, const char *arg);
int tr_set_context(struct tr_rec *r);
int tr_restore_context(struct tr_rec *r);
void tr_write_symbols(struct tr_rec *r, bool final);
int tr_set_functions(struct tr_rec *r);
int tr_restore_functions(struct tr_rec *r);
int tr_elf_offset(const char *path, const char *name, uint64_t *off,
		  const char **why);

/* events.c: -e; list.c: --list */
int tr_scan_events(struct tr_rec *r);
bool tr_event_listed(const struct tr_rec *r, const char *group,
		     const char *name);
FILE *tr_open_available(const struct tr_rec *r);
bool tr_spec_match(const struct tr_rec *r, const char *spec,
		   const char *group, const char *name);
int tr_select_events(struct tr_rec *r);
unsigned int tr_count_selected(const struct tr_rec *r);
int tr_restore_events(struct tr_rec *r);
int tr_list_events(struct tr_rec *r);
int tr_events_leftovers(struct tr_rec *r, char *example, size_t size);
int tr_reset_events(struct tr_rec *r, unsigned int *disabled,
		    unsigned int *filters);

/* track.c: -p, --follow, COMMAND */
int tr_apply_tracking(struct tr_rec *r);
void tr_restore_tracking(struct tr_rec *r);
void tr_start_command(struct tr_rec *r);
bool tr_command_exited(struct tr_rec *r);
void tr_end_command(struct tr_rec *r);
int tr_command_status(const struct tr_rec *r, int status);

/* output.c: output directory, writes, metadata */
int tr_prepare_output(struct tr_rec *r);
int tr_create_outputs(struct tr_rec *r);
int tr_create_output(struct tr_rec *r, struct tr_cpu *c);
int tr_save_batch(struct tr_rec *r, struct tr_cpu *c, unsigned int count);
int tr_copy_metadata(struct tr_rec *r, bool final);
void tr_close_outputs(struct tr_rec *r);
void tr_remove_output(struct tr_rec *r);
int tr_create_file(struct tr_rec *r, int dirfd, const char *name);
void tr_give_away(struct tr_rec *r, int fd);
void tr_close_dirs(struct tr_rec *r);

/* loop.c: record loop and drain */
void tr_record_loop(struct tr_rec *r);
void tr_drain(struct tr_rec *r);
void tr_live_end(struct tr_rec *r);

/* summary.c: status line and summary */
uint64_t tr_refresh_status(struct tr_rec *r);
void tr_show_status(struct tr_rec *r, uint64_t now);
void tr_print_summary(struct tr_rec *r);
int tr_write_summary_file(struct tr_rec *r);
void tr_usage_summary(FILE *f);

/* options.c */
int tr_parse_options(struct tr_opts *o, int argc, char **argv);
bool tr_names_command(int argc, char **argv);
long tr_parse_size_kb(const char *s, long min, long max);
int tr_parse_cpulist(const char *s, unsigned char *bitmap);

/* usage.c */
void tr_usage(FILE *f);

static inline bool tr_cpu_isset(const unsigned char *bm, unsigned int cpu)
{
	return cpu < TR_MAX_CPUS && (bm[cpu / 8] & (1U << (cpu % 8)));
}

static inline void tr_cpu_set(unsigned char *bm, unsigned int cpu)
{
	bm[cpu / 8] |= 1U << (cpu % 8);
}

/* stream_ioctl.c */
extern const struct tr_ops tr_real_ops;

#endif /* _TRING_RECORD_H */
