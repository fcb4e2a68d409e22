// SPDX-License-Identifier: GPL-2.0
/*
 * tring_bench_lttng: LTTng's ring buffer alone, in tring_bench's write
 * benchmark, as implementation "lttng_rb".
 *
 * A minimal client of lttng-modules' ring-buffer library (the library
 * LTTng's kernel channels are built on, lttng-lib-ring-buffer.ko): per-CPU
 * buffers, per-CPU synchronisation, overwrite mode, no reader, and the
 * settings of LTTng's own kernel channels (oops consistency, IPI
 * barrier, timer wakeup, 27-bit compressed timestamps). Each event is
 * the record tring writes: a 4-byte header (5-bit id, 27-bit time
 * delta) or, when the library asks for a full timestamp, a 16-byte one
 * (id, full time), then the payload; each sub-buffer starts with tring's
 * packet header. The clock is tring's, ktime_get_mono_fast_ns().
 *
 * Reserve, write and commit are the library's inline fast paths, inlined
 * into the timed loop as trace_write_inline() is into tring_bench's:
 * what is compared is the buffer alone. (LTTng's own probes reach the
 * same calls through function pointers and add a per-CPU monotonic
 * clock fix-up; neither is counted here.)
 *
 * Built only where lttng-modules' sources and its DKMS-built library
 * exist for the kernel (the Makefile); loaded after tring_bench and
 * lttng-tracer (which sets up the library's CPU-hotplug states).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/timekeeping.h>

#include <ringbuffer/config.h>
#include <ringbuffer/frontend_types.h>

#include <linux/tring.h>
#include "tring_bench.h"

#define LRB_EVENT_ID		TRING_ID_FIRST_EVENT

static inline notrace u64
lib_ring_buffer_clock_read(struct lttng_kernel_ring_buffer_channel *chan)
{
	return ktime_get_mono_fast_ns();
}

/*
 * The record header's size: 4 bytes, or 16 when the library asks for a
 * full timestamp (the time went past what 27 bits of delta hold).
 * Records are 4-byte aligned: every header and payload is a multiple
 * of 4, so no padding is ever needed (*pre_header_padding = 0).
 */
static inline size_t
record_header_size(const struct lttng_kernel_ring_buffer_config *config,
		   struct lttng_kernel_ring_buffer_channel *chan,
		   size_t offset, size_t *pre_header_padding,
		   struct lttng_kernel_ring_buffer_ctx *ctx, void *client_ctx)
{
	*pre_header_padding = 0;
	if (ctx->priv.rflags & RING_BUFFER_RFLAG_FULL_TSC)
		return TRING_EVENT_HEADER_EXT_SIZE;
	return TRING_EVENT_HEADER_SIZE;
}

#include <ringbuffer/api.h>

static const struct lttng_kernel_ring_buffer_config lrb_config;
static struct lttng_kernel_ring_buffer_channel *lrb_chan;

static u64 lrb_clock_read(struct lttng_kernel_ring_buffer_channel *chan)
{
	return lib_ring_buffer_clock_read(chan);
}

static size_t lrb_record_header_size(const struct lttng_kernel_ring_buffer_config *config,
				     struct lttng_kernel_ring_buffer_channel *chan,
				     size_t offset, size_t *pre_header_padding,
				     struct lttng_kernel_ring_buffer_ctx *ctx,
				     void *client_ctx)
{
	return record_header_size(config, chan, offset, pre_header_padding,
				  ctx, client_ctx);
}

static size_t lrb_packet_header_size(void)
{
	return sizeof(struct tring_packet_header);
}

static struct tring_packet_header *
lrb_packet_header(struct lttng_kernel_ring_buffer *buf, unsigned int subbuf)
{
	struct lttng_kernel_ring_buffer_channel *chan = buf->backend.chan;

	return lib_ring_buffer_offset_address(&buf->backend,
					      subbuf * chan->backend.subbuf_size);
}

/* A sub-buffer opens: the header's fields known now. */
static void lrb_buffer_begin(struct lttng_kernel_ring_buffer *buf, u64 tsc,
			     unsigned int subbuf)
{
	struct lttng_kernel_ring_buffer_channel *chan = buf->backend.chan;
	struct tring_packet_header *ph = lrb_packet_header(buf, subbuf);

	ph->magic = TRING_PACKET_MAGIC;
	ph->stream_id = 0;
	ph->timestamp_begin = tsc;
	ph->timestamp_end = 0;
	ph->content_size = ~0ULL;
	ph->packet_size = chan->backend.subbuf_size * BITS_PER_BYTE;
	ph->packet_seq_num = chan->backend.num_subbuf *
			     buf->backend.buf_cnt[subbuf].seq_cnt + subbuf;
	ph->events_discarded = 0;
	ph->cpu_id = buf->backend.cpu;
	ph->events_count = 0;
}

/* A sub-buffer closes: its end time, size and the losses so far. */
static void lrb_buffer_end(struct lttng_kernel_ring_buffer *buf, u64 tsc,
			   unsigned int subbuf, unsigned long data_size,
			   const struct lttng_kernel_ring_buffer_ctx *ctx)
{
	struct tring_packet_header *ph = lrb_packet_header(buf, subbuf);

	ph->timestamp_end = tsc;
	ph->content_size = (u64)data_size * BITS_PER_BYTE;
	ph->events_discarded =
		lib_ring_buffer_get_records_lost_full(&lrb_config, ctx) +
		lib_ring_buffer_get_records_lost_wrap(&lrb_config, ctx) +
		lib_ring_buffer_get_records_lost_big(&lrb_config, ctx);
}

static const struct lttng_kernel_ring_buffer_config lrb_config = {
	.cb.ring_buffer_clock_read = lrb_clock_read,
	.cb.record_header_size = lrb_record_header_size,
	.cb.subbuffer_header_size = lrb_packet_header_size,
	.cb.buffer_begin = lrb_buffer_begin,
	.cb.buffer_end = lrb_buffer_end,
	.tsc_bits = TRING_TS_BITS,
	.alloc = RING_BUFFER_ALLOC_PER_CPU,
	.sync = RING_BUFFER_SYNC_PER_CPU,
	.mode = RING_BUFFER_OVERWRITE,
	.backend = RING_BUFFER_PAGE,
	.output = RING_BUFFER_SPLICE,
	.oops = RING_BUFFER_OOPS_CONSISTENCY,
	.ipi = RING_BUFFER_IPI_BARRIER,
	.wakeup = RING_BUFFER_WAKEUP_BY_TIMER,
};

/* The record header, at the reserved slot's start. */
static __always_inline void lrb_write_header(struct lttng_kernel_ring_buffer_ctx *ctx)
{
	struct tring_event_header_ext ext;
	u32 word;

	if (likely(!(ctx->priv.rflags & RING_BUFFER_RFLAG_FULL_TSC))) {
		word = LRB_EVENT_ID | (u32)ctx->priv.tsc << TRING_ID_BITS;
		lib_ring_buffer_write(&lrb_config, ctx, &word, sizeof(word));
		return;
	}
	ext.word = TRING_ID_EXTENDED;
	ext.id = LRB_EVENT_ID;
	ext.timestamp = ctx->priv.tsc;
	lib_ring_buffer_write(&lrb_config, ctx, &ext, sizeof(ext));
}

/* One event: reserve, header, payload, commit, as an LTTng probe does. */
static __always_inline void lrb_write(const void *payload, size_t len)
{
	struct lttng_kernel_ring_buffer_ctx ctx;
	int cpu;

	cpu = lib_ring_buffer_get_cpu(&lrb_config);
	if (unlikely(cpu < 0))
		return;
	memset(&ctx.priv, 0, sizeof(ctx.priv));
	lib_ring_buffer_ctx_init(&ctx, NULL, len, sizeof(u32), NULL);
	ctx.priv.chan = lrb_chan;
	ctx.priv.reserve_cpu = cpu;
	if (likely(!lib_ring_buffer_reserve(&lrb_config, &ctx, NULL))) {
		lib_ring_buffer_backend_get_pages(&lrb_config, &ctx,
						  &ctx.priv.backend_pages);
		lrb_write_header(&ctx);
		lib_ring_buffer_write(&lrb_config, &ctx, payload, len);
		lib_ring_buffer_commit(&lrb_config, &ctx);
	}
	lib_ring_buffer_put_cpu(&lrb_config);
}

/* One loop per payload size: the compiler sees a constant size. */
#define LRB_LOOP(len)							\
static noinline u64 lrb_loop_##len(unsigned int n, const void *p)	\
{									\
	u64 t0 = ktime_get_ns();					\
	unsigned int i;							\
									\
	for (i = 0; i < n; i++)						\
		lrb_write(p, len);					\
	return ktime_get_ns() - t0;					\
}

LRB_LOOP(8)
LRB_LOOP(64)
LRB_LOOP(256)

static u64 lrb_loop(unsigned int n, unsigned int len, const void *payload)
{
	if (len == 8)
		return lrb_loop_8(n, payload);
	if (len == 64)
		return lrb_loop_64(n, payload);
	return lrb_loop_256(n, payload);
}

static int lrb_setup(size_t buf_bytes, size_t subbuf_bytes)
{
	lrb_chan = channel_create(&lrb_config, "tring_bench_lttng", NULL, NULL,
				  subbuf_bytes, buf_bytes / subbuf_bytes, 0, 0);
	if (lrb_chan)
		return 0;
	/* The library's CPU-hotplug states are lttng-tracer's to set up. */
	pr_warn("channel_create() failed: is lttng-tracer loaded?\n");
	return -ENOMEM;
}

static void lrb_teardown(void)
{
	channel_destroy(lrb_chan);
	lrb_chan = NULL;
}

static const struct tring_bench_ext lrb_ext = {
	.name = "lttng_rb",
	.setup = lrb_setup,
	.teardown = lrb_teardown,
	.loop = lrb_loop,
};

static int __init tring_bench_lttng_init(void)
{
	return tring_bench_ext_register(&lrb_ext);
}

static void __exit tring_bench_lttng_exit(void)
{
	tring_bench_ext_unregister(&lrb_ext);
}

module_init(tring_bench_lttng_init);
module_exit(tring_bench_lttng_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tring: LTTng's ring buffer alone, in tring_bench");
