// SPDX-License-Identifier: GPL-2.0
/*
 * tring: the system call entries of the default buffer, sys_<name>, one
 * event per call of the kernel's own table, all written by one probe on
 * sys_enter. Their files and enabling are tring_events_fs.c's; the exit
 * of every call, exit_syscall, is a row of tring_event_table.h.
 */
#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/compat.h>
#include <linux/debugfs.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>

#include "tring_events.h"
#include "tring_events_src.h"
#include "tring_filter_file.h"
#include "tring_track.h"

/*
 * System call entries: sys_<name> for every call of the x86_64 system
 * call table of the kernel built against, with its arguments by the
 * names its prototype in linux/syscalls.h gives them, or, for the
 * arguments a prototype leaves unnamed and the calls x86 defines itself,
 * by the names of their SYSCALL_DEFINE<n>() (tring_syscalls.awk lists
 * those); an argument that is a path (a const char __user * named
 * filename, pathname or path) is recorded as text, as the last field.
 * tring_syscalls.h is generated from those headers at build time
 * (tring_syscalls.awk); a call neither knows (one a later kernel adds
 * outside linux/syscalls.h) gets its six raw arguments, arg0 to arg5.
 */

/**
 * struct tring_sys_call - one system call's entry event
 * @name: sys_<name>; NULL for a number the table does not use.
 * @nargs: its arguments.
 * @path: 1 + the index of its path argument, or 0.
 * @args: their names.
 */
struct tring_sys_call {
	const char *name;
	u8 nargs;
	u8 path;
	const char *args[6];
};

#define TRING_SYSCALL(nr, sym, n, p, a0, a1, a2, a3, a4, a5)		\
	[nr] = { #sym, n, p, { a0, a1, a2, a3, a4, a5 } },
static const struct tring_sys_call tring_sys_calls[] = {
#include "tring_syscalls.h"
};

#undef TRING_SYSCALL

static_assert(ARRAY_SIZE(tring_sys_calls) == TRING_NR_SYSCALLS);

/* The six raw arguments: the layout of calls without a prototype. */
static const struct tring_field tring_fields_sys_args[] = {
	{ .name = "arg0", .type = TRING_FIELD_U64, .offset = 0 },
	{ .name = "arg1", .type = TRING_FIELD_U64, .offset = 8 },
	{ .name = "arg2", .type = TRING_FIELD_U64, .offset = 16 },
	{ .name = "arg3", .type = TRING_FIELD_U64, .offset = 24 },
	{ .name = "arg4", .type = TRING_FIELD_U64, .offset = 32 },
	{ .name = "arg5", .type = TRING_FIELD_U64, .offset = 40 },
	{ }
};

/* A layout many events share, named once in the metadata. */
const struct tring_struct_name tring_sys_structs[] = {
	{ "sys_args", tring_fields_sys_args },
	{ }
};

/*
 * The other calls' fields, filled by tring_prepare_syscalls(): up to six
 * arguments and the end. 16 bytes a field: about 50 KiB for the ~460
 * numbers of the table, once for the module.
 */
static struct tring_field tring_sys_fields[TRING_NR_SYSCALLS][7];

/* Are @sc's arguments the six raw ones (struct sys_args)? */
static bool tring_sys_raw(const struct tring_sys_call *sc)
{
	unsigned int i;

	if (sc->nargs != 6 || sc->path)
		return false;
	for (i = 0; i < 6; i++)
		if (strcmp(sc->args[i], tring_fields_sys_args[i].name))
			return false;
	return true;
}

/*
 * The fields of call @sc into @f: its arguments as u64 in order, the
 * path argument left for last as text. Return: the fixed part's size.
 */
static unsigned int tring_sys_layout(const struct tring_sys_call *sc,
				     struct tring_field *f)
{
	unsigned int i, off = 0;

	for (i = 0; i < sc->nargs; i++) {
		if (i + 1 == sc->path)
			continue;
		*f++ = (struct tring_field){ .name = sc->args[i],
					     .type = TRING_FIELD_U64,
					     .offset = off };
		off += sizeof(u64);
	}
	if (sc->path)
		*f++ = (struct tring_field){ .name = sc->args[sc->path - 1],
					     .type = TRING_FIELD_STRING,
					     .offset = off };
	*f = (struct tring_field){ };
	return off;
}

/**
 * tring_prepare_syscalls - fill in the descriptions of the system calls
 *
 * Called by tring_events_prepare(), before anything reads them.
 */
void tring_prepare_syscalls(void)
{
	const struct tring_sys_call *sc;
	struct tring_event_desc *ev;
	unsigned int nr;

	for (nr = 0; nr < TRING_NR_SYSCALLS; nr++) {
		sc = &tring_sys_calls[nr];
		/* A hole in the table: its number is sys_unknown. */
		if (!sc->name || !strcmp(sc->name, "sys_ni_syscall"))
			continue;
		ev = &tring_builtin_events[TRING_EV_SYS_FIRST -
					   TRING_ID_FIRST_EVENT + nr];
		ev->group = "syscalls";
		ev->name = sc->name;
		ev->id = TRING_EV_SYS_FIRST + nr;
		if (tring_sys_raw(sc)) {
			ev->size = 6 * sizeof(u64);
			ev->fields = tring_fields_sys_args;
		} else {
			ev->size = tring_sys_layout(sc, tring_sys_fields[nr]);
			ev->fields = tring_sys_fields[nr];
		}
	}
}

/* A page per CPU for the path a system call is given. */
static DEFINE_PER_CPU(char[TRING_TEXT_MAX], tring_sys_path_text);

/*
 * Per call, the entries whose path could not be read without faulting
 * (not in memory, or a bad pointer: both fail alike), so recorded and
 * filtered as "": events/syscalls/path_faults. Incremented by the probe
 * on any CPU with atomic_long_inc() (no ordering: a count orders
 * nothing), read by the file with atomic_long_read(), each counter on
 * its own: a read sees every increment done before it began, and maybe
 * some done during it. Never reset.
 */
static atomic_long_t tring_sys_path_faults[TRING_NR_SYSCALLS];

/*
 * Copy the arguments of call @sc, all but its path, to @to: as many as
 * its description's fixed part holds.
 */
static __always_inline void tring_sys_args(const struct tring_sys_call *sc,
					   u64 *to, const unsigned long *args)
{
	unsigned int i;
	u64 v;

	for (i = 0; i < sc->nargs; i++) {
		if (i + 1 == sc->path)
			continue;
		v = args[i];
		/* Records are 4-byte aligned. */
		memcpy(to++, &v, sizeof(v));
	}
}

/*
 * Does the entry of system call @sc (@size bytes of arguments, @text its
 * path or NULL) pass filter @f? Its record, as tring_ev_filter.c lays
 * it out, on the stack.
 */
static bool tring_sys_keep(const struct tring_filter *f,
			   const struct tring_sys_call *sc, unsigned int size,
			   const unsigned long *args, const char *text)
{
	u64 rec[TRING_FREC_PID(6 * sizeof(u64)) / sizeof(u64) + 1] = { };
	s32 pid = current->pid;

	tring_sys_args(sc, rec, args);
	memcpy((u8 *)rec + TRING_FREC_STR(size), &text, sizeof(text));
	memcpy((u8 *)rec + TRING_FREC_PID(size), &pid, sizeof(pid));
	return tring_filter_match(f, rec, TRING_FREC_PID(size) + sizeof(pid));
}

/*
 * Copy the path of a call into the CPU's buffer: its length (0 on a
 * fault, counted unless the path is NULL, which some calls take).
 */
static long tring_sys_path(const struct tring_sys_call *sc,
			   const unsigned long *args, char *text)
{
	const char __user *path = (const char __user *)args[sc->path - 1];
	long n;

	/*
	 * Without faulting: the probe runs in the tracepoint's RCU-sched
	 * read side (preemption disabled) on 6.1 and 6.12 alike, where a
	 * page fault may not sleep; the path is read where it is, or not.
	 */
	pagefault_disable();
	n = strncpy_from_user(text, path, TRING_TEXT_MAX - 1);
	pagefault_enable();
	if (n < 0) {
		if (path)
			atomic_long_inc(&tring_sys_path_faults[sc - tring_sys_calls]);
		n = 0;
	}
	text[n] = '\0';
	return n;
}

/* events/syscalls/path_faults: "sys_<name> <count>" per call with one. */
static int tring_sys_faults_show(struct seq_file *m, void *unused)
{
	unsigned int nr;
	long n;

	for (nr = 0; nr < TRING_NR_SYSCALLS; nr++) {
		n = atomic_long_read(&tring_sys_path_faults[nr]);
		if (n)
			seq_printf(m, "%s %ld\n", tring_sys_calls[nr].name, n);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_sys_faults);

/**
 * tring_sys_faults_file - create events/syscalls/path_faults
 * @group: events/syscalls/.
 *
 * Return: 0 or the error debugfs_create_file() gave.
 */
int tring_sys_faults_file(struct dentry *group)
{
	return PTR_ERR_OR_ZERO(debugfs_create_file("path_faults", 0400, group,
						   NULL,
						   &tring_sys_faults_fops));
}

/* Write sys_<name> for system call @nr: its arguments, maybe a path. */
static void tring_sys_entry(long nr, const unsigned long *args)
{
	const struct tring_sys_call *sc = &tring_sys_calls[nr];
	unsigned int id = TRING_EV_SYS_FIRST + nr;
	unsigned int size = tring_builtin_events[id - TRING_ID_FIRST_EVENT].size;
	struct tring_res res __uninitialized;
	const struct tring_filter *f;
	char *text = NULL;
	void *ev;
	long n = 0;

	preempt_disable_notrace();
	if (sc->path) {
		text = this_cpu_ptr(tring_sys_path_text);
		n = tring_sys_path(sc, args, text);
	}
	/* Rejected before anything is reserved. */
	f = tring_ev_filter(id);
	if (f && !tring_sys_keep(f, sc, size, args, text))
		goto out;
	if (text)
		ev = tring_reserve_text(id, size, text, n, &res) ? NULL : res.data;
	else
		ev = tring_reserve_fixed(id, size, &res);
	if (ev) {
		tring_sys_args(sc, ev, args);
		tring_commit(&res);
	}
out:
	preempt_enable_notrace();
}

/*
 * The system calls whose entries are recorded while syscall_entry's
 * probe is registered: a bit per number, set by its
 * events/syscalls/sys_<name>/enable, all of them by syscall_entry's
 * enable, which also records the numbers the table lacks, as
 * sys_unknown (tring_sys_all). Both change under tring_events_lock
 * (tring_events_fs.c),
 * set before the probe is registered and cleared after it is
 * unregistered; the probe reads them with test_bit() and READ_ONCE(). A
 * probe that runs while a bit changes may see it either way: the call
 * is then recorded or not, as if it came just before or just after.
 */
DECLARE_BITMAP(tring_sys_on, TRING_NR_SYSCALLS);
bool tring_sys_all;

/* A call tring_probe_sys_enter() records: its arguments, the event. */
static noinline void tring_sys_record(struct pt_regs *regs, long id,
				      bool known)
{
	unsigned long args[6];

	syscall_get_arguments(current, regs, args);
	if (known) {
		tring_sys_entry(id, args);
		return;
	}
	tring_sys_unknown_record(id, args);
}

/*
 * The checks that leave a call out come first and take no stack frame
 * of their own: tracking, the call's own enable, its filter's pid gate.
 */
void tring_probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	bool known;

	if (tring_track_skip_current())
		return;
	known = id >= 0 && id < TRING_NR_SYSCALLS && !in_compat_syscall() &&
		tring_builtin_events[TRING_EV_SYS_FIRST -
				     TRING_ID_FIRST_EVENT + id].name;
	if (known ? !test_bit(id, tring_sys_on) : !READ_ONCE(tring_sys_all))
		return;
	if (known && tring_ev_gated_out(TRING_EV_SYS_FIRST + id))
		return;
	tring_sys_record(regs, id, known);
}
