// SPDX-License-Identifier: GPL-2.0
/*
 * tring: generic events, every trace event of the running kernel.
 *
 * The list of events and each event's fields come from the kernel's own
 * description, its tracefs files (available_events, events/<g>/<e>/format),
 * read at run time through a kernel-internal mount of tracefs: nothing is
 * compiled in, so a new kernel's events appear without a rebuild and a
 * changed event never breaks the build. An event tring describes by hand
 * (tring_event_table.h) of the same group and name wins: no generic event
 * is made for it.
 *
 * Recording: enabling an event creates one kernel perf event per online
 * CPU, of type PERF_TYPE_TRACEPOINT with the kernel's event id, sampling
 * every hit with the raw record. The kernel's perf probe for the event
 * runs the event's own TP_fast_assign() into perf's per-CPU scratch
 * record and calls tring_gen_overflow() with it; that copies the fields
 * into the default buffer with tring_reserve()/tring_commit(), turning
 * each __data_loc/__rel_loc field into its content (a string, or a count
 * and the elements) so that CTF readers decode it.
 *
 * /sys/kernel/debug/tring/events/
 *   generic_enable              1/0: every generic event; X when mixed
 *   <group>/enable              every event of a group of generic events
 *                               only (tring's own groups keep theirs)
 *   <group>/<event>/enable      one generic event
 *   <group>/<event>/id          its id in the trace
 *   <group>/<event>/format      its fields in the trace, and the kernel's id
 *
 * Concurrency: the list (tring_gen_events) is built at load and freed at
 * unload; everything that changes after load (a field table parsed on
 * first use, the perf events of an enabled event) changes under
 * tring_gen_lock. A field table is complete before ->parsed says so
 * (release), and is read without the lock once ->parsed is seen
 * (acquire, tring_gen_parse()); ->err is set once, under the lock. The
 * overflow handler takes no lock: it reads only the event's field table,
 * which is complete before the first perf event that can call the handler
 * is created, and never changes or goes away until unload, after every
 * perf event is released and a grace period passed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

#include "tring_events.h"
#include "tring_generic.h"

/* What a field of the kernel's record becomes in the trace. */
enum tring_gen_kind {
	TRING_GEN_INT,		/* an integer of 1, 2, 4 or 8 bytes */
	TRING_GEN_CHARS,	/* char[N]: text of N bytes */
	TRING_GEN_ARRAY,	/* N integers */
	TRING_GEN_BYTES,	/* anything else of fixed size: N bytes */
	TRING_GEN_DSTR,		/* __data_loc char[]: a NUL-terminated string */
	TRING_GEN_DARR,		/* __data_loc T[]: u32 count, then the T */
};

/**
 * struct tring_gen_field - one field of a generic event
 * @name: its name, the kernel's.
 * @src: its offset in the kernel's record.
 * @size: its size there (4, the location word, for a dynamic field).
 * @kind: enum tring_gen_kind.
 * @elem: bytes of the integer or of one element.
 * @is_signed: the integers are signed.
 * @hex: a pointer: shown in hexadecimal.
 * @rel: __rel_loc: the location counts from the end of the field.
 */
struct tring_gen_field {
	char *name;
	u16 src;
	u16 size;
	u8 kind;
	u8 elem;
	u8 is_signed:1;
	u8 hex:1;
	u8 rel:1;
};

/* Dynamic fields an event may have (no kernel event has more than 5). */
#define TRING_GEN_MAX_DYN	8

/**
 * struct tring_gen_event - one event of the kernel's
 * @group: its group, as in tracefs.
 * @name: its name, as in tracefs.
 * @id: its id in tring's traces.
 * @kid: the kernel's id for it (perf's config); valid once @parsed.
 * @fields: its fields in record order, without common_type, common_flags
 *	and common_preempt_count; valid once @parsed.
 * @nr_fields: entries in @fields.
 * @fixed: payload bytes of the fixed-size fields.
 * @rec_min: the kernel's record is at least this long.
 * @parsed: @kid and @fields are valid.
 * @err: why it cannot be recorded (0: it can, as far as we know).
 * @enabled: perf events exist for it, in @pe.
 * @pe: one perf event per CPU, NULL where none; an array of nr_cpu_ids.
 * @dir: its directory under events/<group>/.
 */
struct tring_gen_event {
	char *group;
	char *name;
	unsigned int id;
	int kid;
	struct tring_gen_field *fields;
	unsigned int nr_fields;
	unsigned int fixed;
	unsigned int rec_min;
	bool parsed;
	int err;
	bool enabled;
	struct perf_event **pe;
	struct dentry *dir;
};

static bool generic_events = true;
module_param(generic_events, bool, 0444);
MODULE_PARM_DESC(generic_events, "list every other trace event of the kernel under events/ (generic events)");

static DEFINE_MUTEX(tring_gen_lock);
static struct tring_gen_event *tring_gen_events;
static unsigned int tring_gen_nr;
static struct vfsmount *tring_gen_mnt;	/* tracefs, mounted for us */

/**
 * struct tring_gen_group - a group directory tring_generic.c created
 * @dir: events/<group>/, of generic events only (a group with one of
 *	tring's own events has that group's directory and enable file).
 * @name: the group's name: its first event's ->group.
 */
struct tring_gen_group {
	struct dentry *dir;
	const char *name;
};

static struct tring_gen_group *tring_gen_groups;
static unsigned int tring_gen_nr_groups;
static struct dentry *tring_gen_all_file;
static bool tring_gen_dead;		/* unloading: no enable any more */

/*
 * Read a whole tracefs file; a NUL follows its text. Return: or ERR_PTR.
 *
 * tracefs files have ->read and no ->read_iter, which kernel_read()
 * needs: they are read through their ->read into a page mapped for the
 * moment in the calling task (insmod's, or an enable file's writer's),
 * then copied. A task without a user address space gets -EOPNOTSUPP.
 */
static char *tring_gen_read(const char *path)
{
	size_t cap = PAGE_SIZE, len = 0;
	unsigned long ubuf;
	struct file *f;
	char *buf, *nb;
	loff_t pos = 0;
	ssize_t n;

	if (!current->mm)
		return ERR_PTR(-EOPNOTSUPP);
	f = file_open_root_mnt(tring_gen_mnt, path, O_RDONLY, 0);
	if (IS_ERR(f))
		return ERR_CAST(f);
	if (!f->f_op->read) {
		filp_close(f, NULL);
		return ERR_PTR(-EINVAL);
	}
	ubuf = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(ubuf)) {
		filp_close(f, NULL);
		return ERR_PTR((long)ubuf);
	}
	buf = kvmalloc(cap, GFP_KERNEL);
	while (buf) {
		if (len + PAGE_SIZE + 1 > cap) {
			nb = kvmalloc(cap * 2, GFP_KERNEL);
			if (nb)
				memcpy(nb, buf, len);
			kvfree(buf);
			buf = nb;
			cap *= 2;
			continue;
		}
		n = f->f_op->read(f, (char __user *)ubuf, PAGE_SIZE, &pos);
		if (n <= 0 || copy_from_user(buf + len, (char __user *)ubuf, n))
			break;
		len += n;
	}
	vm_munmap(ubuf, PAGE_SIZE);
	filp_close(f, NULL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	buf[len] = '\0';
	return buf;
}

/* Bytes of one @type, a C type name of the kernel's format; 0: unknown. */
static unsigned int tring_gen_type_size(const char *type)
{
	static const struct { const char *t; u8 size; } types[] = {
		{ "char", 1 }, { "unsigned char", 1 }, { "signed char", 1 },
		{ "u8", 1 }, { "s8", 1 }, { "__u8", 1 }, { "bool", 1 },
		{ "short", 2 }, { "unsigned short", 2 }, { "u16", 2 },
		{ "s16", 2 }, { "__u16", 2 }, { "__be16", 2 }, { "__le16", 2 },
		{ "int", 4 }, { "unsigned int", 4 }, { "unsigned", 4 },
		{ "u32", 4 }, { "s32", 4 }, { "__u32", 4 }, { "__be32", 4 },
		{ "__le32", 4 }, { "pid_t", 4 }, { "gfp_t", 4 },
		{ "long", 8 }, { "unsigned long", 8 }, { "long long", 8 },
		{ "unsigned long long", 8 }, { "u64", 8 }, { "s64", 8 },
		{ "__u64", 8 }, { "__be64", 8 }, { "__le64", 8 },
		{ "size_t", 8 }, { "void *", sizeof(void *) },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (!strcmp(type, types[i].t))
			return types[i].size;
	return 0;
}

/* CTF keywords a field may not be called: CTF's escape is a leading '_'. */
static bool tring_gen_ctf_keyword(const char *s)
{
	static const char *const kw[] = {
		"align", "callsite", "const", "char", "clock", "double", "enum",
		"env", "event", "floating_point", "float", "integer", "int",
		"long", "short", "signed", "stream", "string", "struct", "trace",
		"typealias", "typedef", "unsigned", "variant", "void", "_Bool",
		"_Complex", "_Imaginary",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kw); i++)
		if (!strcmp(s, kw[i]))
			return true;
	return false;
}

/*
 * One "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line of a
 * format file (after "field:") into @f. Return: 0, 1 to skip the field,
 * or -EINVAL.
 */
static int tring_gen_parse_field(char *line, struct tring_gen_field *f)
{
	char *decl, *semi, *name, *end, *type, tbuf[64];
	unsigned int off, size, es;
	bool array = false;
	int sgn;

	semi = strchr(line, ';');
	if (!semi || sscanf(semi + 1, " offset:%u; size:%u; signed:%d;",
			    &off, &size, &sgn) != 3)
		return -EINVAL;
	*semi = '\0';
	decl = strim(line);
	end = decl + strlen(decl);
	/* NAME, maybe followed by [N]: the array's brackets. */
	if (end > decl && end[-1] == ']') {
		array = true;
		while (end > decl && *end != '[')
			end--;
		*end = '\0';
	}
	name = end;
	while (name > decl && (isalnum(name[-1]) || name[-1] == '_'))
		name--;
	if (name == end || name == decl || off + size > U16_MAX ||
	    name - decl >= sizeof(tbuf))
		return -EINVAL;
	strscpy(tbuf, decl, name - decl + 1);
	type = strim(tbuf);
	if (!strcmp(name, "common_type") || !strcmp(name, "common_flags") ||
	    !strcmp(name, "common_preempt_count"))
		return 1;

	*f = (struct tring_gen_field) { .src = off, .size = size,
					.is_signed = sgn == 1 };
	if (str_has_prefix(type, "__data_loc ") ||
	    str_has_prefix(type, "__rel_loc ")) {
		if (size != 4)
			return -EINVAL;
		f->rel = type[2] == 'r';
		type = strim(strchr(type, ' '));
		end = strstr(type, "[]");
		if (end)
			*end = '\0';
		type = strim(type);
		if (!strcmp(type, "char")) {
			f->kind = TRING_GEN_DSTR;
			f->elem = 1;
		} else {
			f->kind = TRING_GEN_DARR;
			f->elem = tring_gen_type_size(type) ?: 1;
			if (f->elem == 1 && strcmp(type, "s8") &&
			    strcmp(type, "signed char"))
				f->is_signed = 0;
		}
	} else if (array) {
		es = tring_gen_type_size(type);
		if (!strcmp(type, "char") || !strcmp(type, "const char")) {
			f->kind = TRING_GEN_CHARS;
			f->elem = 1;
		} else if (es && size % es == 0) {
			f->kind = TRING_GEN_ARRAY;
			f->elem = es;
		} else {
			f->kind = TRING_GEN_BYTES;
			f->elem = 1;
		}
	} else if (size == 1 || size == 2 || size == 4 || size == 8) {
		f->kind = TRING_GEN_INT;
		f->elem = size;
		f->hex = !!strchr(type, '*');
	} else {
		f->kind = TRING_GEN_BYTES;
		f->elem = 1;
	}
	if (!size)
		return 1;
	f->name = kasprintf(GFP_KERNEL, "%s%s",
			    tring_gen_ctf_keyword(name) ? "_" : "", name);
	return f->name ? 0 : -ENOMEM;
}

/*
 * Make @ev's field table from @text, the kernel's format of it. The
 * caller holds tring_gen_lock. Return: 0 or -errno (also kept in ->err).
 */
static int tring_gen_build(struct tring_gen_event *ev, char *text)
{
	struct tring_gen_field *fields;
	unsigned int n = 0, cap = 0, ndyn = 0;
	char *line, *next, *p;
	int ret = 0, r;

	for (line = text; line; line = strchr(line + 1, '\n'))
		cap++;
	fields = kcalloc(cap, sizeof(*fields), GFP_KERNEL);
	if (!fields)
		return -ENOMEM;
	ev->kid = -1;
	for (line = text; line && !ret; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "ID: %d", &ev->kid) == 1)
			continue;
		p = strstr(line, "field:");
		if (!p)
			continue;
		r = tring_gen_parse_field(p + 6, &fields[n]);
		if (r < 0) {
			ret = r;
			break;
		}
		if (r)
			continue;
		if (fields[n].kind >= TRING_GEN_DSTR) {
			if (++ndyn > TRING_GEN_MAX_DYN)
				ret = -E2BIG;
		} else {
			ev->fixed += fields[n].size;
		}
		ev->rec_min = max_t(unsigned int, ev->rec_min,
				    fields[n].src + fields[n].size);
		n++;
	}
	if (!ret && ev->kid < 0)
		ret = -EINVAL;
	if (ret) {
		while (n--)
			kfree(fields[n].name);
		kfree(fields);
		ev->fixed = 0;
		ev->rec_min = 0;
		/* A memory shortage may pass: try again next time. */
		if (ret != -ENOMEM)
			WRITE_ONCE(ev->err, ret);
		return ret;
	}
	ev->fields = fields;
	ev->nr_fields = n;
	/*
	 * Publishes the table: pairs with the smp_load_acquire() of
	 * tring_gen_parse(), which then uses it without tring_gen_lock.
	 */
	smp_store_release(&ev->parsed, true);
	return 0;
}

/*
 * Read the kernel's format of @ev and make its field table, once. The
 * caller does not hold tring_gen_lock: tracefs's format file is a
 * seq_file, and reading it under tring_gen_lock would order seq_file's
 * lock after ours, while our own format and metadata files (seq_files)
 * take ours under theirs (lockdep: one class for every seq_file).
 * Return: 0 or -errno (also kept in ->err, unless it may pass).
 */
static int tring_gen_parse(struct tring_gen_event *ev)
{
	char *text, *path;
	int ret;

	/* Pairs with the smp_store_release() of tring_gen_build(). */
	if (smp_load_acquire(&ev->parsed))
		return 0;
	ret = READ_ONCE(ev->err);
	if (ret)
		return ret;
	path = kasprintf(GFP_KERNEL, "events/%s/%s/format", ev->group,
			 ev->name);
	if (!path)
		return -ENOMEM;
	text = tring_gen_read(path);
	kfree(path);
	if (IS_ERR(text))
		return PTR_ERR(text);
	mutex_lock(&tring_gen_lock);
	ret = ev->parsed ? 0 : ev->err ?: tring_gen_build(ev, text);
	mutex_unlock(&tring_gen_lock);
	kvfree(text);
	return ret;
}

/*
 * Where the content of dynamic field @f of @rec (@size bytes) is:
 * *@off, and its length, 0 if the location points outside the record.
 */
static __always_inline unsigned int
tring_gen_loc(const struct tring_gen_field *f, const u8 *rec,
	      unsigned int size, unsigned int *off)
{
	unsigned int len;
	u32 loc;

	memcpy(&loc, rec + f->src, sizeof(loc));
	len = loc >> 16;

	*off = (loc & 0xffff) + (f->rel ? f->src + 4 : 0);
	return *off + len <= size ? len : 0;
}

/*
 * perf's overflow handler, called for every hit of the event on this
 * CPU with the kernel's assigned record as raw sample data. Runs in the
 * context of the tracepoint (any, NMI included), with preemption
 * disabled by the tracepoint (and interrupts by perf). Lockless: see the
 * contract at the top of the file.
 */
static void tring_gen_overflow(struct perf_event *pe,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	const struct tring_gen_event *ev = pe->overflow_handler_context;
	const struct perf_raw_record *raw;
	unsigned int dlen[TRING_GEN_MAX_DYN];
	const struct tring_gen_field *f;
	struct tring_res res __uninitialized;
	unsigned int i, d, len, off, size;
	struct tring_buffer *buf;
	const u8 *rec;
	u8 *p;
	int ret;

	/* perf_tp_event() gives the record: one fragment, flagged RAW. */
	if (!(data->sample_flags & PERF_SAMPLE_RAW))
		return;
	raw = data->raw;
	if (!raw || !perf_raw_frag_last(&raw->frag))
		return;
	rec = raw->frag.data;
	size = raw->frag.size;
	if (size < ev->rec_min)
		return;
	/* The payload's size: the fixed fields, each dynamic one's content. */
	len = ev->fixed;
	for (i = 0, d = 0; i < ev->nr_fields; i++) {
		f = &ev->fields[i];
		if (f->kind == TRING_GEN_DSTR) {
			dlen[d] = tring_gen_loc(f, rec, size, &off);
			dlen[d] = strnlen(rec + off, dlen[d]);
			len += dlen[d++] + 1;
		} else if (f->kind == TRING_GEN_DARR) {
			dlen[d] = tring_gen_loc(f, rec, size, &off) / f->elem;
			len += 4 + dlen[d++] * f->elem;
		}
	}
	/* As tring_reserve_fixed() in tring_events.c. */
	preempt_disable_notrace();
	buf = rcu_dereference_sched(tring_default_buf);
	ret = buf ? tring_reserve(buf, ev->id, len, &res) : -ENODEV;
	preempt_enable_notrace();
	if (ret)
		return;
	p = res.data;
	for (i = 0, d = 0; i < ev->nr_fields; i++) {
		f = &ev->fields[i];
		if (f->kind < TRING_GEN_DSTR) {
			memcpy(p, rec + f->src, f->size);
			p += f->size;
			continue;
		}
		tring_gen_loc(f, rec, size, &off);
		if (f->kind == TRING_GEN_DSTR) {
			memcpy(p, rec + off, dlen[d]);
			p[dlen[d]] = '\0';
			p += dlen[d++] + 1;
		} else {
			memcpy(p, &(u32){ dlen[d] }, sizeof(u32));
			memcpy(p + 4, rec + off, dlen[d] * f->elem);
			p += 4 + dlen[d++] * f->elem;
		}
	}
	tring_commit(&res);
}

/* Release @ev's perf events. The caller holds tring_gen_lock. */
static void tring_gen_release(struct tring_gen_event *ev)
{
	unsigned int cpu;

	if (!ev->pe)
		return;
	for_each_possible_cpu(cpu)
		if (ev->pe[cpu])
			perf_event_release_kernel(ev->pe[cpu]);
	kfree(ev->pe);
	ev->pe = NULL;
	ev->enabled = false;
}

/*
 * Enable or disable @ev; the caller holds tring_gen_lock. After a
 * disable the handler may still run on another CPU until
 * tracepoint_synchronize_unregister(): it uses nothing a disable frees.
 */
static int tring_gen_set(struct tring_gen_event *ev, bool on)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_period = 1,
		/* PERIOD: one overflow per hit, never throttled (perf_swevent_event) */
		.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_PERIOD,
	};
	struct perf_event *pe;
	unsigned int cpu;
	int ret;

	if (ev->enabled == on)
		return 0;
	if (!on) {
		tring_gen_release(ev);
		return 0;
	}
	if (tring_gen_dead)
		return -ENODEV;
	/* Parsed by the caller, before it took tring_gen_lock. */
	if (!ev->parsed)
		return ev->err ?: -EAGAIN;
	attr.config = ev->kid;
	ev->pe = kcalloc(nr_cpu_ids, sizeof(*ev->pe), GFP_KERNEL);
	if (!ev->pe)
		return -ENOMEM;
	ev->enabled = true;
	/* CPUs that come online later get no perf event (documented). */
	for_each_online_cpu(cpu) {
		pe = perf_event_create_kernel_counter(&attr, cpu, NULL,
						      tring_gen_overflow, ev);
		if (IS_ERR(pe)) {
			ret = PTR_ERR(pe);
			tring_gen_release(ev);
			/* Refused by perf: remember, unless it may pass. */
			if (ret != -ENOMEM)
				WRITE_ONCE(ev->err, ret);
			return ret;
		}
		ev->pe[cpu] = pe;
	}
	return 0;
}

/*
 * Is @ev one of those an enable file switches: @one, or else every event
 * of @group, or else every event? A file of many skips the events perf
 * refused (->err).
 */
static bool tring_gen_selected(const struct tring_gen_event *ev,
			       const struct tring_gen_event *one,
			       const char *group)
{
	if (one)
		return ev == one;
	/* Also read without tring_gen_lock: written under it, once. */
	if (READ_ONCE(ev->err))
		return false;
	return !group || !strcmp(ev->group, group);
}

/* "1", "0", or "X" when some of the selected events are on. */
static ssize_t tring_gen_state_read(const struct tring_gen_event *one,
				    const char *group, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	bool any_on = false, any_off = false;
	unsigned int i;
	char s[2];

	mutex_lock(&tring_gen_lock);
	for (i = 0; i < tring_gen_nr; i++) {
		if (!tring_gen_selected(&tring_gen_events[i], one, group))
			continue;
		if (tring_gen_events[i].enabled)
			any_on = true;
		else
			any_off = true;
	}
	mutex_unlock(&tring_gen_lock);
	s[0] = any_on && any_off ? 'X' : any_on ? '1' : '0';
	s[1] = '\n';
	return simple_read_from_buffer(ubuf, count, ppos, s, 2);
}

/*
 * Switch the selected events. Of many, those perf refuses are skipped
 * and counted; only a memory shortage (or unloading) fails the write.
 */
static ssize_t tring_gen_state_write(struct tring_gen_event *one,
				     const char *group,
				     const char __user *ubuf, size_t count)
{
	struct tring_gen_event *ev;
	unsigned int i, refused = 0;
	bool on, disabled = false;
	int ret, err;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	/* The formats first, without tring_gen_lock (tring_gen_parse()). */
	for (i = 0; on && i < tring_gen_nr; i++)
		if (tring_gen_selected(&tring_gen_events[i], one, group))
			tring_gen_parse(&tring_gen_events[i]);
	mutex_lock(&tring_gen_lock);
	for (i = 0; i < tring_gen_nr; i++) {
		ev = &tring_gen_events[i];
		if (!tring_gen_selected(ev, one, group))
			continue;
		disabled |= ev->enabled && !on;
		err = tring_gen_set(ev, on);
		/* Of many, only what may pass (-EAGAIN: unread format) fails. */
		if (one || err == -ENOMEM || err == -EAGAIN ||
		    (err && tring_gen_dead))
			ret = ret ?: err;
		else if (err && refused++ < 10)
			pr_info("%s/%s cannot be recorded (error %d)\n",
				ev->group, ev->name, err);
	}
	if (refused)
		pr_info("%u kernel events cannot be recorded\n", refused);
	/* No handler of a disabled event runs any more once this returns. */
	if (disabled)
		tracepoint_synchronize_unregister();
	mutex_unlock(&tring_gen_lock);
	return ret ? ret : count;
}

/*
 * events/<group>/<event>/enable (->private_data: the event) and
 * events/generic_enable (NULL: every generic event).
 */
static ssize_t tring_gen_enable_read(struct file *file, char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	return tring_gen_state_read(file->private_data, NULL, ubuf, count,
				    ppos);
}

static ssize_t tring_gen_enable_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	return tring_gen_state_write(file->private_data, NULL, ubuf, count);
}

static const struct file_operations tring_gen_enable_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tring_gen_enable_read,
	.write	= tring_gen_enable_write,
	.llseek	= default_llseek,
};

/* events/<group>/enable of a group of generic events only. */
static ssize_t tring_gen_group_read(struct file *file, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	const struct tring_gen_group *g = file->private_data;

	return tring_gen_state_read(NULL, g->name, ubuf, count, ppos);
}

static ssize_t tring_gen_group_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	const struct tring_gen_group *g = file->private_data;

	return tring_gen_state_write(NULL, g->name, ubuf, count);
}

static const struct file_operations tring_gen_group_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tring_gen_group_read,
	.write	= tring_gen_group_write,
	.llseek	= default_llseek,
};

static int tring_gen_id_show(struct seq_file *m, void *unused)
{
	const struct tring_gen_event *ev = m->private;

	seq_printf(m, "%u\n", ev->id);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tring_gen_id);

static const char *const tring_gen_kind_names[] = {
	[TRING_GEN_INT] = "int", [TRING_GEN_CHARS] = "char[]",
	[TRING_GEN_ARRAY] = "int[]", [TRING_GEN_BYTES] = "u8[]",
	[TRING_GEN_DSTR] = "string", [TRING_GEN_DARR] = "u32 count, int[count]",
};

static int tring_gen_format_show(struct seq_file *m, void *unused)
{
	struct tring_gen_event *ev = m->private;
	const struct tring_gen_field *f;
	unsigned int i;
	int ret;

	mutex_lock(&tring_gen_lock);
	/* Parsed at open (tring_gen_format_open()); here only its outcome. */
	ret = ev->parsed ? 0 : ev->err ?: -EAGAIN;
	seq_printf(m, "name: %s\nID: %u\nkernel_id: %d\n", ev->name, ev->id,
		   ret ? -1 : ev->kid);
	if (ret) {
		seq_printf(m, "note: cannot be recorded: error %d\n", ret);
		goto unlock;
	}
	seq_puts(m, "format: (in the trace's order; dynamic fields hold their content)\n");
	for (i = 0; i < ev->nr_fields; i++) {
		f = &ev->fields[i];
		seq_printf(m, "\tfield:%s %s;\telement_size:%u;\tsigned:%d;\tkernel_offset:%u;\n",
			   tring_gen_kind_names[f->kind], f->name, f->elem,
			   f->is_signed, f->src);
	}
	if (ev->err)
		seq_printf(m, "note: perf refused it: error %d\n", ev->err);
unlock:
	mutex_unlock(&tring_gen_lock);
	return 0;
}

/*
 * Read the kernel's format here, not in ->show: tracefs's format file is
 * a seq_file too, and reading it under our seq_file's lock nests two
 * locks of one class (lockdep's "possible recursive locking"). Without
 * tring_gen_lock too (tring_gen_parse()).
 */
static int tring_gen_format_open(struct inode *inode, struct file *file)
{
	struct tring_gen_event *ev = inode->i_private;

	tring_gen_parse(ev);
	return single_open(file, tring_gen_format_show, ev);
}

static const struct file_operations tring_gen_format_fops = {
	.owner		= THIS_MODULE,
	.open		= tring_gen_format_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* A CTF integer of field @f (its element for an array). */
static void tring_gen_ctf_int(struct seq_file *m,
			      const struct tring_gen_field *f)
{
	seq_printf(m, "integer { size = %u; align = 8; signed = %s; base = %u; }",
		   f->elem * 8, f->is_signed ? "true" : "false",
		   f->hex ? 16 : 10);
}

/* Whether @ev's payload may end before a multiple of 4 bytes. */
static bool tring_gen_unaligned(const struct tring_gen_event *ev)
{
	unsigned int i;

	for (i = 0; i < ev->nr_fields; i++)
		if (ev->fields[i].kind >= TRING_GEN_DSTR)
			return true;
	return ev->fixed % 4;
}

/**
 * tring_generic_ctf - the CTF metadata of the generic events
 * @m: where.
 *
 * Every generic event whose format was read (enabled at least once or
 * its format file read): the default buffer's metadata ends with these.
 */
void tring_generic_ctf(struct seq_file *m)
{
	const struct tring_gen_event *ev;
	const struct tring_gen_field *f;
	unsigned int i, j;

	mutex_lock(&tring_gen_lock);
	for (i = 0; i < tring_gen_nr; i++) {
		ev = &tring_gen_events[i];
		if (!ev->parsed)
			continue;
		seq_printf(m, "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n\tfields := struct {\n",
			   ev->name, ev->id);
		for (j = 0; j < ev->nr_fields; j++) {
			f = &ev->fields[j];
			seq_puts(m, "\t\t");
			switch (f->kind) {
			case TRING_GEN_INT:
				tring_gen_ctf_int(m, f);
				seq_printf(m, " %s;\n", f->name);
				break;
			case TRING_GEN_CHARS:
				seq_printf(m, "integer { size = 8; align = 8; signed = false; encoding = UTF8; } %s[%u];\n",
					   f->name, f->size);
				break;
			case TRING_GEN_ARRAY:
				tring_gen_ctf_int(m, f);
				seq_printf(m, " %s[%u];\n", f->name,
					   f->size / f->elem);
				break;
			case TRING_GEN_BYTES:
				seq_printf(m, "uint8_t %s[%u];\n", f->name,
					   f->size);
				break;
			case TRING_GEN_DSTR:
				seq_printf(m, "string %s;\n", f->name);
				break;
			case TRING_GEN_DARR:
				seq_printf(m, "uint32_t _%s_len;\n\t\t", f->name);
				tring_gen_ctf_int(m, f);
				seq_printf(m, " %s[_%s_len];\n", f->name, f->name);
				break;
			}
		}
		/*
		 * A payload of a length not a multiple of 4 ends in zero
		 * bytes up to the next record; at the end of a packet a CTF
		 * reader would take them for another record's header. An
		 * empty 4-byte aligned struct last makes them part of the
		 * event (babeltrace2 shows "tring_pad = { }").
		 */
		if (tring_gen_unaligned(ev))
			seq_puts(m, "\t\tstruct { } align(32) _tring_pad;\n");
		seq_puts(m, "\t};\n};\n\n");
	}
	mutex_unlock(&tring_gen_lock);
}

/*
 * events/<group>/, found or created with its enable file (counted in
 * tring_gen_groups).
 */
static struct dentry *tring_gen_group(struct dentry *events,
				      const char *group)
{
	struct dentry *dir = debugfs_lookup(group, events);
	struct tring_gen_group *g;
	struct dentry *f;

	if (dir) {
		dput(dir);
		return dir;
	}
	dir = debugfs_create_dir(group, events);
	if (IS_ERR(dir))
		return dir;
	g = &tring_gen_groups[tring_gen_nr_groups++];
	g->dir = dir;
	g->name = group;
	f = debugfs_create_file("enable", 0600, dir, g, &tring_gen_group_fops);
	return IS_ERR(f) ? f : dir;
}

/* The directory and files of @ev. */
static int tring_gen_files(struct dentry *events, struct tring_gen_event *ev)
{
	struct dentry *group, *d;

	group = tring_gen_group(events, ev->group);
	if (IS_ERR(group))
		return PTR_ERR(group);
	ev->dir = debugfs_create_dir(ev->name, group);
	if (IS_ERR(ev->dir)) {
		d = ev->dir;
		ev->dir = NULL;
		return PTR_ERR(d);
	}
	d = debugfs_create_file("enable", 0600, ev->dir, ev,
				&tring_gen_enable_fops);
	if (!IS_ERR(d))
		d = debugfs_create_file("id", 0400, ev->dir, ev,
					&tring_gen_id_fops);
	if (!IS_ERR(d))
		d = debugfs_create_file("format", 0400, ev->dir, ev,
					&tring_gen_format_fops);
	return PTR_ERR_OR_ZERO(d);
}

/* Remove every file and free everything; after the perf events went. */
static void tring_gen_free(void)
{
	struct tring_gen_event *ev;
	unsigned int i, j;

	debugfs_remove(tring_gen_all_file);
	tring_gen_all_file = NULL;
	for (i = 0; i < tring_gen_nr; i++) {
		ev = &tring_gen_events[i];
		debugfs_remove(ev->dir);
	}
	for (i = 0; i < tring_gen_nr_groups; i++)
		debugfs_remove(tring_gen_groups[i].dir);
	kfree(tring_gen_groups);
	tring_gen_groups = NULL;
	tring_gen_nr_groups = 0;
	for (i = 0; i < tring_gen_nr; i++) {
		ev = &tring_gen_events[i];
		for (j = 0; ev->fields && j < ev->nr_fields; j++)
			kfree(ev->fields[j].name);
		kfree(ev->fields);
		kfree(ev->group);
	}
	kvfree(tring_gen_events);
	tring_gen_events = NULL;
	tring_gen_nr = 0;
	if (tring_gen_mnt)
		kern_unmount(tring_gen_mnt);
	tring_gen_mnt = NULL;
}

/* Mount tracefs for us. Return: 0, or -ENODEV without event tracing. */
static int tring_gen_mount(void)
{
	struct file_system_type *fs = get_fs_type("tracefs");
	struct vfsmount *mnt;

	if (!fs)
		return -ENODEV;
	mnt = kern_mount(fs);
	/* put_filesystem(), which is not exported; kern_mount() holds its own. */
	module_put(fs->owner);
	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	tring_gen_mnt = mnt;
	return 0;
}

/**
 * tring_generic_init - find the kernel's events, make their files
 * @events: /sys/kernel/debug/tring/events.
 * @first_id: the id of the first generic event; the others follow.
 *
 * Without event tracing in the kernel (no tracefs, no available_events)
 * or with the module parameter generic_events=0 there are no generic
 * events, and that is not an error.
 *
 * Return: 0 or -errno (-ENOMEM and the like); nothing is left on error.
 */
int tring_generic_init(struct dentry *events, unsigned int first_id)
{
	char *text, *line, *next, *colon;
	struct tring_gen_event *ev;
	unsigned int cap = 0;
	int ret;

	if (!generic_events)
		return 0;
	ret = tring_gen_mount();
	if (ret) {
		pr_info("no tracefs (error %d): no generic events\n", ret);
		return 0;
	}
	text = tring_gen_read("available_events");
	if (IS_ERR(text)) {
		ret = PTR_ERR(text);
		tring_gen_free();
		if (ret == -ENOMEM)
			return ret;
		pr_info("no available_events (error %d): no generic events\n",
			ret);
		return 0;
	}
	for (line = text; line; line = strchr(line + 1, '\n'))
		cap++;
	tring_gen_events = kvcalloc(cap, sizeof(*tring_gen_events),
				    GFP_KERNEL);
	tring_gen_groups = kcalloc(cap, sizeof(*tring_gen_groups),
				   GFP_KERNEL);
	ret = -ENOMEM;
	if (!tring_gen_events || !tring_gen_groups)
		goto free;
	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		colon = strchr(line, ':');
		if (!colon || !colon[1])
			continue;
		*colon = '\0';
		if (tring_events_builtin(line, colon + 1))
			continue;
		ev = &tring_gen_events[tring_gen_nr];
		/* One allocation: "group\0name\0". */
		ev->group = kmemdup(line, strlen(colon + 1) + (colon - line) + 2,
				    GFP_KERNEL);
		if (!ev->group)
			goto free;
		ev->name = ev->group + (colon - line) + 1;
		ev->id = first_id + tring_gen_nr++;
		ret = tring_gen_files(events, ev);
		if (ret)
			goto free;
		ret = -ENOMEM;
	}
	kvfree(text);
	text = NULL;
	tring_gen_all_file = debugfs_create_file("generic_enable", 0600,
						 events, NULL,
						 &tring_gen_enable_fops);
	ret = PTR_ERR_OR_ZERO(tring_gen_all_file);
	if (ret)
		goto free;
	pr_info("%u generic events, ids %u to %u\n", tring_gen_nr, first_id,
		first_id + tring_gen_nr - 1);
	return 0;

free:
	kvfree(text);
	tring_gen_free();
	return ret;
}

/**
 * tring_generic_exit - disable every generic event, remove their files
 *
 * Returns when no handler runs any more and everything is freed.
 */
void tring_generic_exit(void)
{
	unsigned int i;

	mutex_lock(&tring_gen_lock);
	tring_gen_dead = true;
	for (i = 0; i < tring_gen_nr; i++)
		tring_gen_release(&tring_gen_events[i]);
	mutex_unlock(&tring_gen_lock);
	/* No handler runs once this returns; the files drain their users. */
	tracepoint_synchronize_unregister();
	tring_gen_free();
}
