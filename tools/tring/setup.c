// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record setup: the environment (root, debugfs, the module, the
 * buffer), the knobs, the streams (which CPUs, open, map, check), and
 * the statedump.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int tr_check_environment(struct tr_rec *r)
{
	const char *dfs = r->opt.debugfs;
	char inst[4096];

	if (r->ops->euid() != 0) {
		tr_err("must be run as root (the tring files in debugfs are root-only)");
		return TR_EXIT_SETUP;
	}
	/* A fake or relocated debugfs (--debugfs, TRING_DEBUGFS) is trusted. */
	if (!is_dir(dfs) || (!r->opt.debugfs_given && !r->ops->is_debugfs(dfs))) {
		tr_err("debugfs is not mounted at %s (mount -t debugfs none %s)",
		       dfs, dfs);
		return TR_EXIT_SETUP;
	}
	if (tr_join(r->tring_dir, sizeof(r->tring_dir), dfs, "tring"))
		return TR_EXIT_SETUP;
	if (!is_dir(r->tring_dir)) {
		tr_err("%s does not exist: the tring module is not loaded (modprobe tring)",
		       r->tring_dir);
		return TR_EXIT_SETUP;
	}
	if (!r->opt.instance) {
		strcpy(r->buf_dir, r->tring_dir);
		return 0;
	}
	if (tr_join(inst, sizeof(inst), r->tring_dir, "instances") ||
	    tr_join(r->buf_dir, sizeof(r->buf_dir), inst, r->opt.instance))
		return TR_EXIT_SETUP;
	if (!is_dir(r->buf_dir)) {
		tr_err("no buffer instance '%s' (%s does not exist)",
		       r->opt.instance, r->buf_dir);
		return TR_EXIT_SETUP;
	}
	return 0;
}

/*
 * flock() @dir (where the kernel has file locks), or say that another
 * tring-record has it.
 */
static int lock_dir(const char *dir, int *fd)
{
	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0) {
		tr_err("cannot open %s: %s", dir, strerror(errno));
		return TR_EXIT_SETUP;
	}
	if (!flock(*fd, LOCK_EX | LOCK_NB))
		return 0;
	/*
	 * A kernel without file locking (CONFIG_FILE_LOCKING off, as in
	 * tinyconfig): no lock to take; the streams' own check of another
	 * reader still holds.
	 */
	if (errno == ENOSYS) {
		close(*fd);
		*fd = -1;
		return 0;
	}
	if (errno == EWOULDBLOCK)
		tr_err("%s is in use by another tring-record: nothing was changed",
		       dir);
	else
		tr_err("cannot lock %s: %s", dir, strerror(errno));
	close(*fd);
	*fd = -1;
	return TR_EXIT_SETUP;
}

static int list_cpus(struct tr_rec *r, unsigned char *avail);

/*
 * Before the tracking or the events change: is a stream of the buffer
 * open by another reader (one that takes no lock)? Opened and closed
 * again; the knobs would fail with EBUSY anyway.
 */
static int probe_streams(struct tr_rec *r)
{
	static unsigned char avail[TR_MAX_CPUS / 8];
	struct tr_cpu c = { .fd = -1 };
	char path[4096];
	int ret;

	/* No streams at all: said when they are opened. */
	if (tr_join(path, sizeof(path), r->buf_dir, "per_cpu") ||
	    access(path, F_OK))
		return 0;
	memset(avail, 0, sizeof(avail));
	if (list_cpus(r, avail))
		return TR_EXIT_SETUP;
	for (c.cpu = 0; c.cpu < TR_MAX_CPUS; c.cpu++) {
		if (!tr_cpu_isset(avail, c.cpu) ||
		    (r->opt.cpus_given && !tr_cpu_isset(r->opt.cpus, c.cpu)))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/per_cpu/cpu%u/stream",
				     r->buf_dir, c.cpu) >= sizeof(path))
			return TR_EXIT_SETUP;
		ret = r->ops->open(&c, path);
		if (!ret)
			r->ops->close(&c);
		if (ret == -EBUSY) {
			tr_err("cpu%u: the stream is already open (another reader): nothing was changed",
			       c.cpu);
			return TR_EXIT_SETUP;
		}
	}
	return 0;
}

/**
 * tr_lock - take the buffer, and the module's shared state, for this run
 * @r: the run, its environment checked.
 *
 * Before anything is changed (knobs, tracking, events), so that a second
 * tring-record fails without touching what a running one set up: an
 * flock() on the buffer's directory, and on the module's (which holds
 * the events and the tracking) for an instance too. Released at exit
 * (tr_unlock()), or when the process dies. With -p, COMMAND or -e, also
 * no stream may be open by another reader.
 *
 * Return: 0 or TR_EXIT_SETUP after a message.
 */
int tr_lock(struct tr_rec *r)
{
	int ret;

	ret = lock_dir(r->tring_dir, &r->lock_fd[0]);
	if (!ret && r->opt.instance)
		ret = lock_dir(r->buf_dir, &r->lock_fd[1]);
	if (!ret && (r->opt.npids || r->opt.command || r->opt.follow ||
		     r->opt.nspecs))
		ret = probe_streams(r);
	return ret;
}

void tr_unlock(struct tr_rec *r)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(r->lock_fd); i++) {
		if (r->lock_fd[i] >= 0)
			close(r->lock_fd[i]);
		r->lock_fd[i] = -1;
	}
}

/*
 * Does the knob already hold @val? trace_clock reads "[mono] local";
 * the others read a number and a newline.
 */
static bool knob_holds(const char *knob, const char *cur, const char *val)
{
	size_t len = strlen(val);
	const char *sel;

	if (!strcmp(knob, "trace_clock")) {
		sel = strchr(cur, '[');
		return sel && !strncmp(sel + 1, val, len) && sel[len + 1] == ']';
	}
	return !strncmp(cur, val, len) && (cur[len] == '\n' || !cur[len]);
}

int tr_set_knob(struct tr_rec *r, const char *knob, const char *val)
{
	char path[4096], cur[128];
	int ret;

	if (tr_join(path, sizeof(path), r->buf_dir, knob))
		return TR_EXIT_SETUP;
	if (access(path, F_OK)) {
		tr_err("%s has no knob %s%s", r->buf_dir, knob,
		       r->opt.instance ? " (instances cannot be reconfigured)" : "");
		return TR_EXIT_SETUP;
	}
	/* Writing rebuilds the buffer, dropping its data: only if needed. */
	if (!tr_read_small_file(path, cur, sizeof(cur)) &&
	    knob_holds(knob, cur, val))
		return 0;
	ret = r->ops->knob_write(path, val);
	if (!ret)
		return 0;
	if (ret == -EBUSY)
		tr_err("cannot set %s: the buffer is in use (a stream of it is open or mapped, another tring-record?)",
		       knob);
	else if (ret == -EINVAL || ret == -ERANGE)
		tr_err("the kernel refused %s = %s", knob, val);
	else
		tr_err("cannot set %s: %s", knob, strerror(-ret));
	return TR_EXIT_SETUP;
}

int tr_apply_knobs(struct tr_rec *r)
{
	const struct tr_opts *o = &r->opt;
	char v[32];
	int ret = 0;

	/* The sub-buffer size first: buffer_size_kb is rounded to it. */
	if (o->subbuf_kb > 0) {
		snprintf(v, sizeof(v), "%ld", o->subbuf_kb);
		ret = tr_set_knob(r, "buffer_subbuf_size_kb", v);
	}
	if (!ret && o->buffer_kb > 0) {
		snprintf(v, sizeof(v), "%ld", o->buffer_kb);
		ret = tr_set_knob(r, "buffer_size_kb", v);
	}
	if (!ret && o->overwrite >= 0)
		ret = tr_set_knob(r, "overwrite", o->overwrite ? "1" : "0");
	if (!ret && o->clock)
		ret = tr_set_knob(r, "trace_clock", o->clock);
	return ret;
}

/**
 * tr_set_priority - give the recorder its nice value for recording
 * @r: the recorder, root already (lowering a nice value needs it).
 *
 * --nice N sets N; by default TR_NICE, unless tring-record was started
 * with a lower value already. Failing is only a warning: the recording
 * works, and a reader kept from its CPU counts what it lost.
 */
void tr_set_priority(struct tr_rec *r)
{
	int want = r->opt.nice_given ? r->opt.nice : TR_NICE;
	int ret;

	ret = r->ops->get_nice(&r->old_nice);
	r->nice = r->old_nice;
	if (!ret && !r->opt.nice_given && r->old_nice <= want)
		return;
	if (!ret)
		ret = r->ops->set_nice(want);
	if (ret) {
		tr_warn("cannot set the nice value %d: %s; under load the reader may fall behind and lose events",
			want, strerror(-ret));
		return;
	}
	r->nice = want;
	r->reniced = true;
}

/* CPUs with a per_cpu/cpuN directory, into @avail. */
static int list_cpus(struct tr_rec *r, unsigned char *avail)
{
	char path[4096], *end;
	struct dirent *de;
	unsigned long cpu;
	DIR *d;

	if (tr_join(path, sizeof(path), r->buf_dir, "per_cpu"))
		return TR_EXIT_SETUP;
	d = opendir(path);
	if (!d) {
		tr_err("cannot open %s: %s", path, strerror(errno));
		return TR_EXIT_SETUP;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "cpu", 3) || de->d_name[3] < '0' ||
		    de->d_name[3] > '9')
			continue;
		cpu = strtoul(de->d_name + 3, &end, 10);
		if (!*end && cpu < TR_MAX_CPUS)
			tr_cpu_set(avail, cpu);
	}
	closedir(d);
	return 0;
}

static int select_cpus(struct tr_rec *r)
{
	static unsigned char avail[TR_MAX_CPUS / 8];
	unsigned int cpu, n = 0;
	int ret;

	memset(avail, 0, sizeof(avail));
	ret = list_cpus(r, avail);
	if (ret)
		return ret;
	for (cpu = 0; cpu < TR_MAX_CPUS; cpu++) {
		if (r->opt.cpus_given && !tr_cpu_isset(r->opt.cpus, cpu))
			continue;
		if (!tr_cpu_isset(avail, cpu)) {
			if (r->opt.cpus_given) {
				tr_err("CPU %u has no stream in %s/per_cpu",
				       cpu, r->buf_dir);
				return TR_EXIT_SETUP;
			}
			continue;
		}
		n++;
	}
	if (!n) {
		tr_err("no CPU streams in %s/per_cpu", r->buf_dir);
		return TR_EXIT_SETUP;
	}
	r->cpus = calloc(n, sizeof(*r->cpus));
	r->set = calloc(n, sizeof(*r->set));
	r->pfd = calloc(n, sizeof(*r->pfd));
	if (!r->cpus || !r->set || !r->pfd) {
		tr_err("out of memory");
		return TR_EXIT_SETUP;
	}
	for (cpu = 0; cpu < TR_MAX_CPUS && r->ncpus < n; cpu++) {
		if (!tr_cpu_isset(avail, cpu) ||
		    (r->opt.cpus_given && !tr_cpu_isset(r->opt.cpus, cpu)))
			continue;
		r->cpus[r->ncpus].cpu = cpu;
		r->cpus[r->ncpus].fd = -1;
		r->cpus[r->ncpus].out_fd = -1;
		r->ncpus++;
	}
	return 0;
}

static int open_error(struct tr_cpu *c, const char *path, int err)
{
	switch (err) {
	case -EBUSY:
		tr_err("cpu%u: the stream is already open (another reader, e.g. tring-record, is running)",
		       c->cpu);
		break;
	case -ENODEV:
		tr_err("cpu%u: the buffer is being removed", c->cpu);
		break;
	default:
		tr_err("cannot open %s: %s", path, strerror(-err));
	}
	return TR_EXIT_SETUP;
}

static bool info_sane(const struct tring_info *i)
{
	return i->subbuf_size >= sizeof(struct tring_packet_header) &&
	       !(i->subbuf_size & (i->subbuf_size - 1)) &&
	       i->header_size >= sizeof(struct tring_packet_header) &&
	       i->header_size <= i->subbuf_size && i->subbuf_count >= 1 &&
	       i->map_size >= i->subbuf_size * i->subbuf_count &&
	       !(i->map_size % i->subbuf_size);
}

static int check_info(struct tr_cpu *c)
{
	const struct tring_info *i = &c->info;

	if (i->abi_version != TRING_ABI_VERSION) {
		tr_err("cpu%u: kernel tring ABI version %u, tring-record knows %u",
		       c->cpu, i->abi_version, TRING_ABI_VERSION);
		return TR_EXIT_SETUP;
	}
	if (!info_sane(i)) {
		tr_err("cpu%u: TRING_IOC_INFO returned an impossible shape (sub-buffer %llu x %u, map %llu)",
		       c->cpu, (unsigned long long)i->subbuf_size,
		       i->subbuf_count, (unsigned long long)i->map_size);
		return TR_EXIT_SETUP;
	}
	return 0;
}

static int ioctl_error(struct tr_cpu *c, const char *what, int err)
{
	tr_err("cpu%u: %s failed: %s", c->cpu, what, strerror(-err));
	return TR_EXIT_SETUP;
}

static int set_watermark(struct tr_rec *r, struct tr_cpu *c)
{
	uint32_t wm = r->opt.watermark;
	int ret;

	ret = r->ops->set_watermark(c, wm);
	if (ret)
		return ioctl_error(c, "TRING_IOC_WATERMARK", ret);
	/* The kernel clamps it silently: read back what it took. */
	ret = r->ops->info(c, &c->info);
	if (ret)
		return ioctl_error(c, "TRING_IOC_INFO", ret);
	if (c->info.watermark != wm && c == tr_first_open(r))
		tr_warn("watermark %u out of range, the kernel uses %u",
			wm, c->info.watermark);
	return 0;
}

static int open_cpu(struct tr_rec *r, struct tr_cpu *c)
{
	char path[4096];
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/per_cpu/cpu%u/stream",
			     r->buf_dir, c->cpu) >= sizeof(path))
		return TR_EXIT_SETUP;
	ret = r->ops->open(c, path);
	/* Not online since the buffer was made: no ring to read yet. */
	c->absent = ret == -ENXIO;
	if (c->absent)
		return 0;
	if (ret)
		return open_error(c, path, ret);
	ret = r->ops->info(c, &c->info);
	if (ret)
		return ioctl_error(c, "TRING_IOC_INFO", ret);
	ret = check_info(c);
	if (ret)
		return ret;
	ret = r->ops->map(c);
	if (ret) {
		tr_err("cpu%u: cannot map the stream: %s", c->cpu,
		       strerror(-ret));
		return TR_EXIT_SETUP;
	}
	if (r->opt.watermark) {
		ret = set_watermark(r, c);
		if (ret)
			return ret;
	}
	ret = r->ops->status(c, &c->start);
	if (ret)
		return ioctl_error(c, "TRING_IOC_STATUS", ret);
	c->last = c->start;
	c->next_seq = c->start.read_pos / c->info.subbuf_size;
	return 0;
}

/* Open, map and check the stream of every CPU to record. */
int tr_open_streams(struct tr_rec *r)
{
	unsigned int i;
	int ret;

	ret = select_cpus(r);
	for (i = 0; !ret && i < r->ncpus; i++) {
		ret = open_cpu(r, &r->cpus[i]);
		r->nabsent += r->cpus[i].absent;
	}
	if (ret)
		return ret;
	if (r->nabsent == r->ncpus) {
		tr_err("no CPU to record has a ring in %s (none was online since the buffer was made)",
		       r->buf_dir);
		return TR_EXIT_SETUP;
	}
	if (r->nabsent)
		tr_note(r, "%u CPUs to record have no ring yet (not online since the buffer was made): each is recorded once it comes online",
			r->nabsent);
	return 0;
}

/* The first CPU whose stream is open: every ring has the same shape. */
const struct tr_cpu *tr_first_open(const struct tr_rec *r)
{
	unsigned int i;

	for (i = 0; i < r->ncpus; i++)
		if (!r->cpus[i].absent)
			return &r->cpus[i];
	return r->cpus;
}

/*
 * Open the streams of the CPUs that had no ring, those that have one
 * now (they came online), and create their files. One that cannot be
 * opened or saved is a failed stream: its events are lost, and the exit
 * status says so.
 */
void tr_open_late(struct tr_rec *r)
{
	unsigned int i;

	for (i = 0; r->nabsent && i < r->ncpus; i++) {
		struct tr_cpu *c = &r->cpus[i];

		if (!c->absent)
			continue;
		if (open_cpu(r, c) || (!c->absent && tr_create_output(r, c))) {
			tr_err("cpu%u came online but cannot be recorded", c->cpu);
			c->absent = false;
			c->failed = true;
			r->stream_error = true;
		} else if (c->absent) {
			continue;
		} else {
			tr_note(r, "cpu%u came online: recording it", c->cpu);
		}
		r->nabsent--;
	}
}

/*
 * With --cpus, keep the statedump's writer on the CPUs recorded: the
 * kernel writes its events on the CPU the writing thread runs on. Best
 * effort: if this fails, the statedump may land on a CPU not recorded.
 * Return: the affinity to restore, or NULL.
 */
static cpu_set_t *pin_to_recorded(struct tr_rec *r, size_t *size)
{
	cpu_set_t *old, *set;
	unsigned int i;

	if (!r->opt.cpus_given)
		return NULL;
	*size = CPU_ALLOC_SIZE(TR_MAX_CPUS);
	old = CPU_ALLOC(TR_MAX_CPUS);
	set = CPU_ALLOC(TR_MAX_CPUS);
	if (!old || !set || sched_getaffinity(0, *size, old))
		goto fail;
	CPU_ZERO_S(*size, set);
	for (i = 0; i < r->ncpus; i++)
		CPU_SET_S(r->cpus[i].cpu, *size, set);
	if (sched_setaffinity(0, *size, set))
		goto fail;
	CPU_FREE(set);
	return old;
fail:
	CPU_FREE(old);
	CPU_FREE(set);
	return NULL;
}

/**
 * tr_statedump - ask the kernel for a statedump into the default buffer
 * @r: the run, its streams open and not read yet.
 *
 * Writing "1" to <debugfs>/tring/statedump makes the module write
 * lttng_statedump_start, one event per thread, IRQ action and block
 * device, then lttng_statedump_end, and returns when it is done. Not for
 * an instance (the statedump goes to the default buffer only), nor with
 * --no-statedump. An older module without the file, or a failed write,
 * is a warning: the trace is valid without it. The stop signals wait
 * until the write is done, so a stop cannot cut the statedump short.
 */
void tr_statedump(struct tr_rec *r)
{
	char path[4096];
	sigset_t set, old;
	cpu_set_t *aff;
	size_t size;
	int ret;

	r->statedump = TR_STATEDUMP_SKIPPED;
	if (r->opt.no_statedump || r->opt.instance)
		return;
	if (tr_join(path, sizeof(path), r->tring_dir, "statedump")) {
		r->statedump = TR_STATEDUMP_FAILED;
		return;
	}
	if (access(path, F_OK)) {
		tr_warn("%s does not exist (an older tring module): the trace has no statedump",
			path);
		r->statedump = TR_STATEDUMP_UNSUPPORTED;
		return;
	}
	tr_stop_sigset(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
	aff = pin_to_recorded(r, &size);
	ret = r->ops->knob_write(path, "1");
	if (aff) {
		sched_setaffinity(0, size, aff);
		CPU_FREE(aff);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		tr_warn("statedump failed: writing %s: %s; the trace may lack it, or part of it",
			path, strerror(-ret));
		r->statedump = TR_STATEDUMP_FAILED;
		return;
	}
	r->statedump = TR_STATEDUMP_DONE;
}
