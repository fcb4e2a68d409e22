/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: per-CPU lockless reserve/commit trace ring buffer, kernel API.
 *
 * Writers call trace_write_inline(), or tring_reserve() then
 * tring_commit() to write a payload in place. Both are inline, take no
 * lock, never disable interrupts and may be called from task, softirq,
 * hardirq and NMI context; they disable preemption between reserve and
 * commit. See Documentation/trace/tring.rst for the algorithm.
 */
#ifndef _LINUX_TRING_H
#define _LINUX_TRING_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/irq_work.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/trace_clock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <asm/local.h>
#include <uapi/linux/tring.h>

/* Bytes of the packet header and of the three event header forms. */
#define TRING_PACKET_HEADER_SIZE	sizeof(struct tring_packet_header)
#define TRING_EVENT_HEADER_SIZE		4
#define TRING_EVENT_HEADER_WIDE_SIZE	sizeof(struct tring_event_header_wide)
#define TRING_EVENT_HEADER_EXT_SIZE	sizeof(struct tring_event_header_ext)

/*
 * struct tring_slot.map: the physical sub-buffer currently in a ring slot
 * (low bits), whether a reader took the data of the slot's last lap, and
 * the lap the slot was last claimed for, plus one (0: never claimed).
 */
#define TRING_MAP_PHYS		GENMASK(23, 0)
#define TRING_MAP_TAKEN		BIT(24)
#define TRING_MAP_TAG_SHIFT	25

/*
 * struct tring_cpu.last_ts with this bit set: the record before the next
 * one is unknown (a reservation was given back), so the next record must
 * carry a full timestamp; the bits below still hold the stream's time.
 * Clock values stay below 2^63 ns, and with the bit set the fast path's
 * delta test always fails.
 */
#define TRING_TS_FORCE_EXT	BIT_ULL(63)

/*
 * struct tring_cpu.cur_last when the cache describes no sub-buffer, and
 * while a writer updates it: below the end of every record (a record
 * ends after its sub-buffer's packet header), so none passes the fast
 * path's test.
 */
#define TRING_NO_LAST		0UL
#define TRING_BUSY_LAST		1UL

/* Buffer attribute flags (struct tring_buffer_attr.flags). */
#define TRING_OVERWRITE		BIT(0)

/*
 * What a commit adds to struct tring_slot.commit for its event, on top of
 * its bytes: a constant (the inline commit adds one immediate) above the
 * bytes of any lap (a lap is one sub-buffer, at most 2^24 bytes), so the
 * count of a lap's events is its difference shifted by this. A lap holds
 * at most 2^22 events (4-byte records): its difference stays below 2^63.
 */
#define TRING_COMMIT_EVENT_SHIFT	40
#define TRING_COMMIT_EVENT		BIT(TRING_COMMIT_EVENT_SHIFT)

/**
 * struct tring_slot - one ring slot: a logical sub-buffer index
 * @commit: bytes committed to the slot, plus TRING_COMMIT_EVENT for each
 *	committed event, summed over every lap, modulo 2^64. The low bits
 *	(modulo the sub-buffer size) wrap to zero exactly when every byte
 *	reserved in the current lap is committed; the bits from
 *	TRING_COMMIT_EVENT_SHIFT up count events, and wrap: count them only
 *	as differences. Written with local operations by writers on the
 *	owning CPU only.
 * @map: physical sub-buffer, TRING_MAP_TAKEN and lap tag. Changed with
 *	cmpxchg by the owning CPU's writers (claiming a slot for a new lap,
 *	overwrite mode) and by the reader (swapping in its spare); read by
 *	writers to find where to write. Never changes in discard mode.
 * @done: laps of this slot completed and delivered. Written only by the
 *	owning CPU's writers, with release; read with acquire by the reader
 *	and by the stats code on any CPU.
 * @done_commit: @commit when the last lap completed: the base from which
 *	the next lap's events are counted, as an unsigned difference.
 *	Owning CPU's writers only (stats read it with READ_ONCE).
 *
 * Writers find the physical sub-buffer of a slot's open lap in @map: it
 * cannot change while the lap is open (a claim changes only the tag, and
 * the reader swaps only completed laps). The per-CPU copy the fast path
 * uses (struct tring_cpu.cur_addr) is keyed by the absolute stream
 * position of the sub-buffer, not by the slot: a copy stored late, by a
 * writer interrupted while the ring moved on, names a sub-buffer no
 * record can be reserved in again, so it never points a writer into a
 * later lap's sub-buffer or into the reader's.
 */
struct tring_slot {
	local_t commit;
	atomic_long_t map;
	atomic_long_t done;
	unsigned long done_commit;
};

struct tring_buffer;
struct tring_ring_mem;
struct tring_ctx_set;

/**
 * struct tring_cpu - one CPU's ring
 * @offset: the reserve position: bytes reserved in this CPU's stream
 *	since creation. Changed with local_cmpxchg() by writers on this CPU
 *	(writers nest, task < softirq < hardirq < NMI, and each nested
 *	writer finishes before the one it interrupted resumes), and by a
 *	flush: on this CPU from an IPI, or from another CPU while this one
 *	is offline and nothing writes here (tring_cpu_flush() holds the
 *	hotplug lock). Grows, except that tring_discard() gives back the
 *	last record by moving it back to that record's start. Read
 *	remotely (READ_ONCE) for positions and statistics.
 * @last_ts: timestamp of an event reserved before any event not yet
 *	reserved, never lowered by a writer. While TRING_TS_FORCE_EXT is
 *	clear it is never newer than the event that precedes the next one
 *	in the stream. A give-back sets the flag: the record before the
 *	next one may then be older than @last_ts, and the flag makes the
 *	next record carry a full timestamp. Writers on this CPU only (and a
 *	flush, as for @offset, which leaves the position at a boundary and
 *	raises it to the flush's clock, keeping the flag).
 * @cur_last: the last stream position of the sub-buffer that @cur_addr
 *	and @cur_slot describe (its start + @subbuf_mask): the furthest a
 *	record reserved through them may end; TRING_NO_LAST, or
 *	TRING_BUSY_LAST during an update. The three are a cache of what
 *	tring_reserve() would otherwise compute from @slots and the slot's
 *	map: written only by tring_reserve_slow_v4() on this CPU, for the
 *	sub-buffer it has just reserved a record in (never while the buffer
 *	carries contexts: every reservation is then out of line), after taking
 *	@cur_last to TRING_BUSY_LAST with cmpxchg_local() (writers nested
 *	in an update leave it alone), and @cur_last last, moving only
 *	forward; read by tring_reserve() between its read of @offset and
 *	its cmpxchg, which fails if they changed after being read. See
 *	tring_cache_set().
 * @cur_addr: the address of stream position 0 if the whole stream were
 *	laid out like the sub-buffer of @cur_last: a record at position p
 *	in that sub-buffer is at @cur_addr + p.
 * @cur_slot: the slot of the sub-buffer of @cur_last.
 * @subbuf_size: bytes per sub-buffer (power of two).
 * @subbuf_mask: @subbuf_size - 1.
 * @clock: TRING_CLOCK_* timestamp source.
 * @subbuf_shift: log2(@subbuf_size).
 * @va: kernel mapping of the physical sub-buffers, contiguous. Also says
 *	the ring is made: set once, last, with a release store, by
 *	tring_cpu_init() (buffer creation, or the CPU-hotplug prepare step
 *	of a CPU coming online for the first time, before it runs anything:
 *	a writer never finds it NULL); read with acquire by
 *	tring_buffer_cpu(), plainly by writers and by a reader that has it.
 * @slots: the ring's slots.
 * @slot_mask: number of slots - 1 (a power of two).
 * @lap_shift: log2 of the ring's bytes: position >> @lap_shift is a lap.
 * @overwrite: flight-recorder mode.
 * @cpu: the CPU this ring belongs to.
 * @max_payload: largest payload a record with an extended header can
 *	carry. A sub-buffer's first record never takes that header, so
 *	compact ids (below TRING_ID_WIDE) may carry 12 bytes more and the
 *	others 8 bytes more.
 * @discarded: events dropped, buffer full (writers on this CPU).
 * @too_big: events larger than a sub-buffer (writers on this CPU).
 * @overwritten: events lost to overwrite (writers on this CPU).
 * @subbufs_delivered: sub-buffers completed (writers on this CPU).
 * @events_delivered: events in completed sub-buffers (writers on this CPU).
 * @consumed: reader position. Written by the reader: in discard mode
 *	with release (tring_cpu_put()), read with acquire by writers
 *	deciding whether a slot is free; in overwrite mode writers never
 *	read it, the ordering against them comes from the cmpxchg on
 *	struct tring_slot.map, and the reader also moves it with WRITE_ONCE
 *	when it skips overwritten sub-buffers (tring_resync()). Read with
 *	READ_ONCE for wakeups and statistics.
 * @held: sub-buffers the reader has taken and not given back (reader).
 * @reader_phys: overwrite mode: the physical sub-buffer outside the ring,
 *	the reader's spare or the one it holds (reader).
 * @retake: overwrite mode: a reader closed while holding a sub-buffer; the
 *	next reader is handed it again (reader).
 * @watermark: complete sub-buffers that wake a poller (reader writes,
 *	writers READ_ONCE).
 * @reader_waiting: a poller is about to sleep. Set by the reader, cleared
 *	by the wakeup irq_work; writers read it after a full barrier.
 * @flush_pos: every sub-buffer before this position was closed by a flush;
 *	until the reader consumes up to it one complete sub-buffer wakes a
 *	poller. Written (WRITE_ONCE) by the flush, on the ring's CPU, or on
 *	the flusher's CPU while the ring's CPU is offline; read with
 *	READ_ONCE.
 * @waitq: pollers sleep here.
 * @wakeup: raised by writers (any context, NMI included) to wake @waitq.
 * @buf: the buffer this ring belongs to.
 * @pages: the pages behind @va, for mapping them to user space; NULL for
 *	a ring in a persistent region (struct tring_ring_mem).
 * @nr_pages: entries in @pages, or pages from @pfn on.
 * @pfn: a ring in a persistent region: the page frame of @va, whose
 *	pages are physically contiguous.
 * @nr_phys: physical sub-buffers: the slots plus the spare in overwrite
 *	mode.
 *
 * The first cache line holds what the write fast path reads and writes;
 * the reader's fields start on their own cache line.
 */
struct tring_cpu {
	local_t offset;
	u64 last_ts;
	unsigned long cur_last;
	unsigned long cur_addr;
	struct tring_slot *cur_slot;
	unsigned long subbuf_size;
	unsigned long subbuf_mask;
	unsigned int clock;
	unsigned int subbuf_shift;

	void *va;
	struct tring_slot *slots;
	unsigned long slot_mask;
	unsigned int lap_shift;
	bool overwrite;
	unsigned int cpu;
	unsigned long max_payload;
	local_t discarded;
	local_t too_big;
	local_t overwritten;
	local_t subbufs_delivered;
	local_t events_delivered;

	unsigned long consumed ____cacheline_aligned_in_smp;
	unsigned long held;
	unsigned long reader_phys;
	bool retake;
	unsigned int watermark;
	int reader_waiting;
	unsigned long flush_pos;
	wait_queue_head_t waitq;
	struct irq_work wakeup;
	struct tring_buffer *buf;
	struct page **pages;
	unsigned long nr_pages;
	unsigned long pfn;
	unsigned long nr_phys;
};

/**
 * enum tring_field_type - what an event payload field is
 * @TRING_FIELD_U8: unsigned 8-bit integer.
 * @TRING_FIELD_U16: unsigned 16-bit integer.
 * @TRING_FIELD_U32: unsigned 32-bit integer.
 * @TRING_FIELD_U64: unsigned 64-bit integer.
 * @TRING_FIELD_S8: signed 8-bit integer.
 * @TRING_FIELD_S16: signed 16-bit integer.
 * @TRING_FIELD_S32: signed 32-bit integer.
 * @TRING_FIELD_S64: signed 64-bit integer.
 * @TRING_FIELD_CHARS: a fixed char array shown as text (a task's comm).
 * @TRING_FIELD_STRING: NUL-terminated text; only as the last field.
 * @TRING_FIELD_BYTES: bytes whose count is the previous field (an
 *	unsigned integer); only as the last field.
 */
enum tring_field_type {
	TRING_FIELD_U8,
	TRING_FIELD_U16,
	TRING_FIELD_U32,
	TRING_FIELD_U64,
	TRING_FIELD_S8,
	TRING_FIELD_S16,
	TRING_FIELD_S32,
	TRING_FIELD_S64,
	TRING_FIELD_CHARS,
	TRING_FIELD_STRING,
	TRING_FIELD_BYTES,
};

/**
 * struct tring_field - one field of an event's payload
 * @name: its name in the trace; NULL ends a field array.
 * @type: enum tring_field_type.
 * @offset: byte offset in the payload.
 *
 * A field's size is the distance to the next field's offset, or to the
 * end of the event's fixed part for the last fixed field: fields follow
 * each other in order, and a hole shows up as a size that does not match
 * the type (tring_buffer_create() refuses it).
 */
struct tring_field {
	const char *name;
	unsigned short type;
	unsigned short offset;
};

/*
 * TRING_FIELD(struct, member, TYPE): a field laid out as @member of
 * @struct. TRING_FIELD_TAIL(struct, name, TYPE): the variable-length last
 * field (STRING or BYTES), right after @struct.
 */
#define TRING_FIELD(st, f, t) \
	{ .name = #f, .type = TRING_FIELD_##t, .offset = offsetof(st, f) }
#define TRING_FIELD_TAIL(st, f, t) \
	{ .name = #f, .type = TRING_FIELD_##t, .offset = sizeof(st) }

/**
 * struct tring_event_desc - an event a buffer can hold
 * @group: group (directory under events/), such as "sched".
 * @name: event name, such as "sched_switch".
 * @id: event id written in its records (TRING_ID_FIRST_EVENT and up).
 * @size: bytes of the fixed part of the payload: every field but a
 *	trailing string or byte sequence.
 * @fields: the payload's fields, ending with an entry whose name is NULL.
 *
 * The CTF metadata, the format files and the writers all use this one
 * description, so adding an event adds its metadata.
 */
struct tring_event_desc {
	const char *group;
	const char *name;
	unsigned int id;
	unsigned int size;
	const struct tring_field *fields;
};

/**
 * struct tring_buffer_attr - what to create
 * @name: short name (instances/<name> in debugfs); copied.
 * @subbuf_size: bytes per sub-buffer: a power of two, at least PAGE_SIZE.
 * @subbuf_count: sub-buffers per CPU: a power of two, at least 2.
 * @flags: %TRING_OVERWRITE for flight-recorder mode; 0 to drop new
 *	events when the buffer is full.
 * @clock: TRING_CLOCK_MONO or TRING_CLOCK_LOCAL.
 * @watermark: complete sub-buffers that wake a poller; 0 picks an eighth
 *	of the ring (at least one).
 * @events: the events the buffer will hold, for its metadata; must stay
 *	valid until the buffer is destroyed (normally a static const array).
 * @nr_events: entries in @events.
 */
struct tring_buffer_attr {
	const char *name;
	size_t subbuf_size;
	unsigned int subbuf_count;
	unsigned int flags;
	unsigned int clock;
	unsigned int watermark;
	const struct tring_event_desc *events;
	unsigned int nr_events;
};

/**
 * struct tring_buffer - a set of per-CPU rings
 * @cpus: one ring per possible CPU; made for the CPUs online when the
 *	buffer is created, and for each other CPU when it first comes
 *	online (see tring_buffer_cpu()).
 * @attr: the attributes it was created with (@attr.name points to @name).
 * @name: the buffer's name.
 * @priv: owned by the debugfs front end.
 * @cpuhp_node: on tring's CPU-hotplug state, which makes the rings.
 * @mem: where the rings live if not in pages of their own (a persistent
 *	region), else NULL.
 * @ctx: the contexts every record carries after its header, or NULL: an
 *	instance's context file (the default buffer's contexts are tring's
 *	own writers', tring_ctx.h). Published with rcu_assign_pointer()
 *	under the instance's lock, read with rcu_dereference_sched() by
 *	tring_reserve_slow_v4() (its writers run with preemption off); a
 *	replaced set is freed after a grace period.
 */
struct tring_buffer {
	struct tring_cpu __percpu *cpus;
	struct tring_buffer_attr attr;
	char name[32];
	void *priv;
	struct hlist_node cpuhp_node;
	struct tring_ring_mem *mem;
	struct tring_ctx_set __rcu *ctx;
};

/**
 * struct tring_res - a reservation between tring_reserve() and its end
 * @cb: the CPU ring the space was reserved in.
 * @slot: the slot holding the record.
 * @rec: the record (its header).
 * @data: where the payload goes.
 * @pos: stream position of the record; after an out-of-line reservation
 *	its bits from TRING_POS_CTX_SHIFT on are not the position's (see
 *	tring_reserve_slow_v4()).
 * @len: bytes reserved: header and payload rounded up to 4 bytes.
 */
struct tring_res {
	struct tring_cpu *cb;
	struct tring_slot *slot;
	void *rec;
	void *data;
	unsigned long pos;
	unsigned long len;
};

struct tring_buffer *tring_buffer_create(const struct tring_buffer_attr *attr);
void tring_buffer_destroy(struct tring_buffer *buf);
struct tring_buffer *tring_default_buffer(void);
const struct tring_event_desc *tring_default_event(unsigned int id);

/*
 * Ids other modules may give events of their own in the default buffer
 * (tring_default_events_add()); they fit the compact record header.
 */
#define TRING_ID_MODULE_FIRST	2
#define TRING_ID_MODULE_LAST	4

int tring_default_events_add(const struct tring_event_desc *evs,
			     unsigned int n);
void tring_default_events_remove(const struct tring_event_desc *evs,
				 unsigned int n);

/*
 * Reading, for kernel consumers (the debugfs stream files sit on these).
 * Calls on one CPU's ring must be serialized by the caller.
 */
int tring_cpu_get(struct tring_cpu *cb, struct tring_subbuf *sb);
int tring_cpu_put(struct tring_cpu *cb, u64 seq, unsigned long count);
void tring_cpu_unget(struct tring_cpu *cb, unsigned long count);
unsigned long tring_cpu_flush(struct tring_cpu *cb);
unsigned long tring_cpu_flush_ts(struct tring_cpu *cb, bool empty, u64 *ts);
unsigned long tring_cpu_ready(struct tring_cpu *cb, unsigned long limit);
bool tring_cpu_poll_ready(struct tring_cpu *cb);
int tring_cpu_wait(struct tring_cpu *cb);
void tring_cpu_set_watermark(struct tring_cpu *cb, unsigned int wm);

/**
 * tring_buffer_cpu - one CPU's ring of a buffer, for reading
 * @buf: the buffer.
 * @cpu: a possible CPU.
 *
 * A CPU that has not been online since @buf was created has no ring (and
 * no event): it gets one when it comes online, and keeps it.
 *
 * Return: the ring, or NULL if it is not made.
 */
static inline struct tring_cpu *tring_buffer_cpu(struct tring_buffer *buf,
						 unsigned int cpu)
{
	struct tring_cpu *cb = per_cpu_ptr(buf->cpus, cpu);

	/*
	 * Pairs with smp_store_release() in tring_cpu_init(): a ring seen
	 * made is seen whole.
	 */
	return smp_load_acquire(&cb->va) ? cb : NULL;
}

/*
 * The exported functions the inline code below calls are an ABI between
 * tring.ko and every module built against this header: the inline code
 * is compiled into those modules. A change of what one of them takes or
 * returns gives it a new name (a _vN suffix), so that a module built
 * against the old header fails to load (unknown symbol) instead of
 * calling it the old way. Documentation/trace/tring.rst, "Kernel API".
 *
 * tring_reserve_slow_v4() returns the record's stream position, 4-byte
 * aligned, with its header's size in the two low bits, (size / 4) - 1
 * (0 for a compact header, 1 for a wide one, 3 for an extended one), and
 * the bytes of the contexts written after the header, divided by 4, in
 * bits TRING_POS_CTX_SHIFT to 62 (0 unless the buffer carries contexts:
 * an instance's context file). Those bits stay in struct tring_res.pos:
 * the position is used modulo a ring's bytes (its slot, its offset in
 * the sub-buffer), and tring_discard() makes it whole again from the
 * reserve position, which is at most a ring ahead. Not a two-word
 * struct: the kernel's 8-byte stack alignment makes GCC realign the
 * stack, with a frame pointer, in every caller of a function returning
 * 16 bytes, fast path included; nor an out parameter: a local whose
 * address is taken costs every caller a stack canary. (v3 returned no
 * context bytes: a record could not carry more than its header before
 * the payload; v2 kept struct tring_cpu.cur_pos, a sub-buffer's start,
 * where v3 keeps cur_last, its last position, which the inline test
 * reads; v1, tring_reserve_slow(), returned one "extended header" flag
 * in the low bits.)
 * tring_deliver_v2() takes a commit counter that counts an event as
 * TRING_COMMIT_EVENT (v1, tring_deliver(), as the sub-buffer size).
 */
#define TRING_POS_HLEN		3L
#define TRING_POS_CTX_SHIFT	48
#define TRING_POS_LOW_MASK	(BIT_ULL(TRING_POS_CTX_SHIFT) - 1)

long tring_reserve_slow_v4(struct tring_cpu *cb, unsigned int id,
			   unsigned int len);
void tring_deliver_v2(struct tring_cpu *cb, struct tring_slot *slot,
		      unsigned long commit);
bool tring_discard(struct tring_res *res);

/**
 * tring_clock_read - read a ring's clock
 * @cb: the ring.
 *
 * Both clocks are safe to read from NMI context.
 *
 * Return: nanoseconds.
 */
static __always_inline u64 tring_clock_read(const struct tring_cpu *cb)
{
	if (cb->clock == TRING_CLOCK_LOCAL)
		return trace_clock_local();
	return ktime_get_mono_fast_ns();
}

/**
 * tring_payload_room - bytes a payload takes in a record
 * @len: payload bytes.
 *
 * Return: @len rounded up to a multiple of 4.
 */
static __always_inline unsigned long tring_payload_room(unsigned int len)
{
	return ((unsigned long)len + 3) & ~3UL;
}

/**
 * tring_header_word - the 32-bit word that starts a record
 * @id: event id below TRING_ID_WIDE, TRING_ID_WIDE, or TRING_ID_EXTENDED
 *	with @ts 0.
 * @ts: timestamp; its low TRING_TS_BITS bits are kept.
 *
 * Return: the header word, laid out as include/uapi/linux/tring.h says.
 */
static __always_inline u32 tring_header_word(unsigned int id, u64 ts)
{
	return id | (u32)ts << TRING_ID_BITS;
}

/**
 * tring_header_id - the id field of a record's header word
 * @word: the header word.
 *
 * Return: the event id, or TRING_ID_WIDE or TRING_ID_EXTENDED for those
 * headers.
 */
static __always_inline unsigned int tring_header_id(u32 word)
{
	return word & (BIT(TRING_ID_BITS) - 1);
}

/**
 * tring_slot_at - the ring slot holding a stream position
 * @cb: the CPU ring.
 * @pos: the position.
 *
 * Return: the slot.
 */
static __always_inline struct tring_slot *tring_slot_at(struct tring_cpu *cb,
							unsigned long pos)
{
	return &cb->slots[(pos >> cb->subbuf_shift) & cb->slot_mask];
}

/**
 * tring_phys_va - the kernel address of a physical sub-buffer
 * @cb: the CPU ring.
 * @phys: its index in the mapping.
 *
 * Return: the address.
 */
static __always_inline void *tring_phys_va(struct tring_cpu *cb,
					   unsigned long phys)
{
	return cb->va + (phys << cb->subbuf_shift);
}

/**
 * tring_slot_packet - the sub-buffer a slot uses now
 * @cb: the CPU ring.
 * @slot: the slot.
 *
 * Stable while the slot's lap is open, which is whenever a writer holds
 * a reservation in it (see struct tring_slot).
 *
 * Return: the sub-buffer, which starts with its packet header.
 */
static __always_inline struct tring_packet_header *
tring_slot_packet(struct tring_cpu *cb, struct tring_slot *slot)
{
	return tring_phys_va(cb, atomic_long_read(&slot->map) & TRING_MAP_PHYS);
}

/*
 * Fill @res for the record at stream position @pos, @len bytes with a
 * @hlen-byte header. Inline on both paths so @res can stay in registers.
 */
static __always_inline void tring_res_init(struct tring_cpu *cb,
					   struct tring_res *res,
					   unsigned long pos, unsigned long len,
					   unsigned long hlen)
{
	struct tring_slot *slot = tring_slot_at(cb, pos);

	res->cb = cb;
	res->slot = slot;
	res->rec = (void *)tring_slot_packet(cb, slot) + (pos & cb->subbuf_mask);
	res->data = res->rec + hlen;
	res->pos = pos;
	res->len = len;
}

/* A record's header at @rec: the compact word, or the wide one and @id. */
static __always_inline void tring_header_put(void *rec, unsigned int id,
					     u64 ts, bool wide)
{
	if (likely(!wide)) {
		*(u32 *)rec = tring_header_word(id, ts);
	} else {
		((u32 *)rec)[0] = tring_header_word(TRING_ID_WIDE, ts);
		((u32 *)rec)[1] = id;
	}
}

/**
 * tring_reserve - reserve space for one event on this CPU
 * @buf: the buffer.
 * @id: event id (TRING_ID_FIRST_EVENT and up).
 * @len: payload bytes.
 * @res: filled in on success; pass it to tring_commit() or tring_discard().
 *	Declare it __uninitialized: with CONFIG_INIT_STACK_ALL_ZERO the
 *	compiler would otherwise zero it on every call.
 *
 * Disables preemption until the reservation ends. The payload area at
 * @res->data is 4-byte aligned; bytes between @len and the next multiple
 * of 4 are already zero. The common case is one local cmpxchg to reserve
 * and one to keep the last timestamp; opening a new sub-buffer is out of
 * line.
 *
 * Context: any, NMI included.
 * Return: 0, -ENOBUFS when the buffer is full (discard mode, or overwrite
 * mode wrapping onto uncommitted data), -E2BIG when the event cannot fit
 * in a sub-buffer. Failures are counted; preemption is enabled again.
 */
static __always_inline int tring_reserve(struct tring_buffer *buf,
					 unsigned int id, unsigned int len,
					 struct tring_res *res)
{
	/*
	 * An id past the compact ones takes the 8-byte wide header, which
	 * adds the id after the header word. Either keeps the timestamp's
	 * low bits only; a record too far from the last one in time takes
	 * the extended header, out of line.
	 */
	bool wide = id >= TRING_ID_WIDE;
	unsigned long hlen = wide ? TRING_EVENT_HEADER_WIDE_SIZE :
				    TRING_EVENT_HEADER_SIZE;
	unsigned long need = hlen + tring_payload_room(len);
	unsigned long old, addr;
	struct tring_slot *slot;
	struct tring_cpu *cb;
	u64 ts, last;
	long pos;

	preempt_disable_notrace();
	cb = this_cpu_ptr(buf->cpus);
	do {
		old = local_read(&cb->offset);
		/*
		 * Compiler barrier, pairing with nothing: every writer of
		 * this ring runs on this CPU, where interrupts land between
		 * instructions in program order. It keeps the compiler from
		 * reading the clock (possibly inlined) before the position.
		 * A nested writer that reserves after our read of the
		 * position makes the cmpxchg fail and we read the clock
		 * again, so the stream's order is the order of its
		 * timestamps.
		 */
		barrier();
		ts = tring_clock_read(cb);
		last = READ_ONCE(cb->last_ts);
		if (unlikely(ts - last >= BIT_ULL(TRING_TS_BITS)))
			goto slow;
		/*
		 * The record must end in the sub-buffer the cache describes.
		 * Its end is tested against that sub-buffer's last position
		 * only: its start cannot be before the sub-buffer's packet
		 * header. The cache names a sub-buffer only once a record is
		 * reserved in it, after its packet header, and @offset never
		 * goes back before that (a record given back was reserved
		 * after its sub-buffer's header). The cache is read after
		 * @offset: if it came to name a later sub-buffer since @old
		 * was read, a reservation there moved @offset past @old for
		 * good, and the cmpxchg fails. A plain read (data_race():
		 * every writer of the cache is on this CPU, nested or done,
		 * and any value read in this window is checked by the
		 * cmpxchg) lets the compiler fold it into the compare; the
		 * barrier above and the cmpxchg's clobber keep it inside.
		 */
		if (unlikely(old + need > data_race(cb->cur_last)))
			goto slow;
		addr = READ_ONCE(cb->cur_addr);
		slot = READ_ONCE(cb->cur_slot);
	} while (unlikely(local_cmpxchg(&cb->offset, old, old + need) != old));
	/*
	 * Unless a writer nested here since we read last_ts changed it: it
	 * wrote a newer time, or gave a record back; keep what it wrote.
	 */
	cmpxchg_local(&cb->last_ts, last, ts);
	res->cb = cb;
	res->slot = slot;
	res->rec = (void *)(addr + old);
	res->data = res->rec + hlen;
	res->pos = old;
	res->len = need;
	tring_header_put(res->rec, id, ts, wide);
	goto zero_tail;
slow:
	/* It writes the record's header, or counts the loss. */
	pos = tring_reserve_slow_v4(cb, id, len);
	if (unlikely(pos < 0))
		return pos == -E2BIG ? -E2BIG : -ENOBUFS;
	hlen = ((pos & TRING_POS_HLEN) + 1) * 4 +
	       ((unsigned long)pos >> TRING_POS_CTX_SHIFT) * 4;
	pos &= ~TRING_POS_HLEN;
	tring_res_init(cb, res, pos, hlen + tring_payload_room(len), hlen);
zero_tail:
	if (len & 3)
		*(u32 *)(res->data + (len & ~3U)) = 0;
	return 0;
}

/**
 * tring_commit - publish a reserved event
 * @res: the reservation from tring_reserve().
 *
 * One local add. The sub-buffer is delivered to the reader when its last
 * reserved byte is committed, whichever writer commits it.
 *
 * Context: the context that made the reservation.
 */
static __always_inline void tring_commit(struct tring_res *res)
{
	struct tring_cpu *cb = res->cb;
	unsigned long v;

	/*
	 * No barrier here: the payload stores, this add and those of any
	 * writer nested in us all happen on this CPU, and tring_deliver_v2()
	 * publishes the whole sub-buffer with one release.
	 */
	v = local_add_return(res->len + TRING_COMMIT_EVENT, &res->slot->commit);
	if (unlikely(!(v & cb->subbuf_mask)))
		tring_deliver_v2(cb, res->slot, v);
	preempt_enable_notrace();
}

/**
 * trace_write_inline - write one event on this CPU
 * @buf: the buffer.
 * @id: event id (TRING_ID_FIRST_EVENT and up).
 * @data: the payload.
 * @len: payload bytes.
 *
 * Context: any, NMI included.
 * Return: 0, or the error of tring_reserve() (the loss is counted).
 */
static __always_inline int trace_write_inline(struct tring_buffer *buf,
					      unsigned int id,
					      const void *data,
					      unsigned int len)
{
	/* Filled by tring_reserve(): no zeroing (INIT_STACK_ALL_ZERO). */
	struct tring_res res __uninitialized;
	int ret;

	ret = tring_reserve(buf, id, len, &res);
	if (unlikely(ret))
		return ret;
	memcpy(res.data, data, len);
	tring_commit(&res);
	return 0;
}

#endif /* _LINUX_TRING_H */
