// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record --reset: the module back to its load-time state, as
 * trace-cmd reset puts ftrace back; and, at the start of a recording,
 * a warning about the state an earlier run (killed, or another tool)
 * left behind, which would silently record less.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

/* <tring>/@name into @path; false when the module has no such file. */
static bool tring_file(const struct tr_rec *r, const char *name, char *path,
		       size_t size)
{
	return (size_t)snprintf(path, size, "%s/%s", r->tring_dir, name) <
	       size && !access(path, F_OK);
}

/* The first line of <tring>/@name, blanks trimmed; "" if unreadable. */
static void read_line(const struct tr_rec *r, const char *name, char *buf,
		      size_t size)
{
	char path[4096];

	buf[0] = '\0';
	if (!tring_file(r, name, path, sizeof(path)) ||
	    tr_read_small_file(path, buf, size))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	while (buf[0] && buf[strlen(buf) - 1] == ' ')
		buf[strlen(buf) - 1] = '\0';
}

/* "enabled: N" of events/generic_stats; 0 without generic events. */
static unsigned long generic_enabled(const struct tr_rec *r)
{
	char path[4096], text[512], *p;

	if (!tring_file(r, "events/generic_stats", path, sizeof(path)) ||
	    tr_read_small_file(path, text, sizeof(text)))
		return 0;
	p = strstr(text, "enabled: ");
	return p ? strtoul(p + 9, NULL, 10) : 0;
}

/**
 * tr_warn_leftovers - say what an earlier run may have left in force
 * @r: the run, its environment checked, nothing changed yet.
 *
 * A tracking set (that -p or COMMAND does not replace), filters on
 * events, generic events enabled (without -e, which sets them itself):
 * each makes the recording hold less than asked, and only
 * tring-record --reset, or the files themselves, clear them.
 */
void tr_warn_leftovers(struct tr_rec *r)
{
	char pids[128], ev[200];
	unsigned long gen;
	int n;

	if (r->opt.instance)
		return;
	read_line(r, "tracking/pid", pids, sizeof(pids));
	if (pids[0] && !r->opt.npids && !r->opt.command)
		tr_warn("tracking/pid holds %s: only those processes are recorded (left by an earlier run? tring-record --reset clears it, -p replaces it)",
			pids);
	n = tr_events_leftovers(r, ev, sizeof(ev));
	if (n > 0)
		tr_warn("%d event%s a filter in force (%s%s): what it rejects is not recorded (left by an earlier run? tring-record --reset removes filters)",
			n, n > 1 ? "s have" : " has", ev, n > 1 ? ", ..." : "");
	gen = r->opt.nspecs ? 0 : generic_enabled(r);
	if (gen)
		tr_warn("%lu generic events are enabled (left by an earlier run? tring-record --reset disables them)",
			gen);
	read_line(r, "context", ev, sizeof(ev));
	if (ev[0] && !r->opt.contexts[0])
		tr_warn("every event carries contexts (%s first; left by an earlier run? tring-record --reset removes them, -C replaces them)",
			ev);
}

/* Clear tracking/pid, follow off; 0 or -1. */
static int reset_tracking(struct tr_rec *r)
{
	char pid[4096], follow[4096], old[128];
	int ret;

	if (!tring_file(r, "tracking/pid", pid, sizeof(pid)))
		return 0;
	read_line(r, "tracking/pid", old, sizeof(old));
	ret = tring_file(r, "tracking/follow", follow, sizeof(follow)) ?
	      r->ops->knob_write(follow, "0") : 0;
	if (!ret)
		ret = r->ops->knob_write(pid, "");
	if (ret) {
		tr_err("cannot clear %s: %s", pid, strerror(-ret));
		return -1;
	}
	tr_note(r, "tracking: cleared%s%s%s, follow off", old[0] ? " (was " : "",
		old, old[0] ? ")" : "");
	return 0;
}

/* Write "0" to <tring>/@name if the module has it; 0 or -1. */
static int switch_off(struct tr_rec *r, const char *name)
{
	char path[4096];
	int ret;

	if (!tring_file(r, name, path, sizeof(path)))
		return 0;
	ret = r->ops->knob_write(path, "0");
	if (ret)
		tr_err("cannot write 0 to %s: %s", path, strerror(-ret));
	return ret ? -1 : 0;
}

/*
 * Every dynamic probe removed: <tring>/@name opened with O_TRUNC, as
 * ftrace's "echo > kprobe_events"; their events are off already.
 * Return: 0 or -1.
 */
static int remove_probes(struct tr_rec *r, const char *name)
{
	char path[4096], line[512];
	unsigned int n = 0;
	FILE *f;
	int fd;

	if (!tring_file(r, name, path, sizeof(path)))
		return 0;
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		n += !!strchr(line, '\n');
	if (f)
		fclose(f);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		tr_err("cannot clear %s: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	tr_note(r, "%s: %u probes removed", name, n);
	return 0;
}

/* Every event off, every filter gone; generic events stay offered. */
static int reset_events(struct tr_rec *r)
{
	unsigned int disabled, filters;
	char path[4096];
	int ret;

	ret = switch_off(r, "events/enable");
	ret |= switch_off(r, "events/generic_enable");
	ret |= tr_reset_events(r, &disabled, &filters);
	tr_note(r, "events: all disabled (%u enable files were on), %u filters removed",
		disabled, filters);
	ret |= remove_probes(r, "kprobe_events");
	ret |= remove_probes(r, "uprobe_events");
	if (tring_file(r, "events/generic_events", path, sizeof(path)))
		tr_note(r, "generic events offered stay offered, disabled: this tring module cannot withdraw them");
	return ret;
}

/* No context on the default buffer's events; 0 or -1. */
static int reset_context(struct tr_rec *r)
{
	char path[4096];
	int fd, ret = 0;

	if (!tring_file(r, "context", path, sizeof(path)))
		return 0;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, "\n", 1) != 1) {
		tr_err("cannot empty %s: %s", path, strerror(errno));
		ret = -1;
	} else {
		tr_note(r, "contexts: none");
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* A parameter of the module from sysfs (TRING_SYSFS, default /sys). */
static int read_param(const char *name, char *buf, size_t size)
{
	const char *sysfs = getenv("TRING_SYSFS");
	char path[4096];

	snprintf(path, sizeof(path), "%s/module/tring/parameters/%s",
		 sysfs && *sysfs ? sysfs : "/sys", name);
	if (tr_read_small_file(path, buf, size)) {
		tr_err("cannot read %s: the knobs are left as they are", path);
		return -1;
	}
	return 0;
}

/* The knobs as the module's parameters set them at load; 0 or -1. */
static int reset_knobs(struct tr_rec *r)
{
	char size[32], count[32], ow[8], v[32];
	unsigned long sb, n;
	int ret;

	if (read_param("subbuf_size", size, sizeof(size)) ||
	    read_param("subbuf_count", count, sizeof(count)) ||
	    read_param("overwrite", ow, sizeof(ow)))
		return -1;
	sb = strtoul(size, NULL, 10) / 1024;
	n = strtoul(count, NULL, 10);
	snprintf(v, sizeof(v), "%lu", sb);
	ret = tr_set_knob(r, "buffer_subbuf_size_kb", v);
	snprintf(v, sizeof(v), "%lu", sb * n);
	ret = ret ?: tr_set_knob(r, "buffer_size_kb", v);
	ret = ret ?: tr_set_knob(r, "overwrite",
				 ow[0] == 'Y' || ow[0] == '1' ? "1" : "0");
	ret = ret ?: tr_set_knob(r, "trace_clock", "mono");
	if (ret)
		return -1;
	tr_note(r, "knobs: buffer_subbuf_size_kb=%lu buffer_size_kb=%lu overwrite=%c trace_clock=mono",
		sb, sb * n, ow[0] == 'Y' || ow[0] == '1' ? '1' : '0');
	return 0;
}

/**
 * tr_reset - put the module back as it was loaded (--reset)
 * @r: the run, its environment checked and the module locked.
 *
 * Tracking cleared and follow off; every event of the default buffer
 * disabled (tring's and the generic ones) and every filter removed; the
 * default buffer's events carry no context; its knobs at the values of the module's parameters
 * (subbuf_size, subbuf_count, overwrite) and the mono clock. Instances
 * belong to the kernel code that made them: left alone. Offered generic
 * events stay offered (the module has no file to withdraw them).
 *
 * Return: 0, or TR_EXIT_SETUP when something could not be put back.
 */
int tr_reset(struct tr_rec *r)
{
	int ret;

	if (r->opt.instance) {
		tr_err("--reset puts back the module and its default buffer, not an instance");
		return TR_EXIT_USAGE;
	}
	ret = reset_tracking(r);
	ret |= reset_events(r);
	ret |= reset_context(r);
	ret |= reset_knobs(r);
	return ret ? TR_EXIT_SETUP : 0;
}
