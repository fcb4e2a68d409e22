/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring twin: what twin_unit's files share: the geometry, the manual
 * clock, payloads and event lengths, reading and decoding packets
 * (twin_unit_lib.c), and the cases each file defines (twin_unit.c runs
 * them).
 */
#ifndef TWIN_UNIT_H
#define TWIN_UNIT_H

#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <linux/cpuhotplug.h>
#include "twin.h"
#include "tring_decode.h"

#define SB		4096UL
#define HDR		TRING_PACKET_HEADER_SIZE
#define T0		5000000000ULL	/* a manual clock start, > 2^27 */
#define TS_SPAN		(1ULL << TRING_TS_BITS)
/* A multiple of TS_SPAN past every time t_timestamps() uses before it. */
#define TS_CROSS	(((T0 + 4000000000ULL) / TS_SPAN + 1) * TS_SPAN)
/* An id that takes the wide header. */
#define WIDE_ID		(TRING_ID_WIDE + 10)

struct uev {
	u32 id;
	u32 len;
	u64 ts;
	int ext;
	unsigned int hlen;	/* header bytes: 4, 8 or 16 */
	u64 pkt;		/* packet_seq_num */
	const unsigned char *p;	/* copy of the payload */
};

struct upk {
	u64 seq, begin, end, discarded, content;
	u32 count;		/* events_count */
	u32 nev, npad, nnop;	/* records found */
	u64 last_ts;
};

struct twin_rd {
	struct uev ev[16384];
	int nev;
	struct upk pk[1024];
	int npk;
	unsigned char arena[4 << 20];
	size_t used;
};

/* twin_unit_lib.c: see there */
extern unsigned long long mclock, mstep;
extern unsigned long mclock_reads[2];
extern int nlens;
extern struct twin_rd R;
extern struct tring_buffer *nest_buf;
void manual_clock(unsigned long long t, unsigned long long step);
void real_clock(void);
void pattern(void *dst, unsigned int len, unsigned int seed);
bool pattern_ok(const void *src, unsigned int len, unsigned int seed);
void set_len(u32 id, long len);
long len_fn(u32 id, const u8 *payload, size_t avail, void *arg);
unsigned long rec_size(unsigned int len);
unsigned long per_subbuf(unsigned long n);
int wr(struct tring_buffer *buf, u32 id, unsigned int len, unsigned int seed);
int wr_seq(struct tring_buffer *buf, u32 id, unsigned int len, u32 seq);
void rd_reset(void);
bool rd_packet(struct tring_cpu *cb, const struct tring_subbuf *sb);
int rd_take(struct tring_cpu *cb, int max);
int rd_all(struct tring_cpu *cb);
void check_packet_order(bool consecutive);
void check_ev(int i, u32 id, unsigned int len, unsigned int seed);
u32 ev_seq(int i);
struct tring_buffer *mk(unsigned int count, unsigned int flags);
void dirty(struct tring_buffer *buf);
void ipi_wait_for(int *p, int v);

/* twin_unit_records.c */
void t_attr(void);
void t_alloc_failures(void);
void t_header_fields(void);
void t_many_packets(void);
void t_payload_lengths(void);
void t_pad_bytes(void);
void t_wide_ids(void);
void t_timestamps(void);
void t_clock_backwards(void);
void t_clock_backwards_after_discard(void);
void t_clock_backwards_nested(void);

/* twin_unit_modes.c */
void t_discard_mode_full(void);
void t_overwrite_stalled(void);
void t_overwrite_held_untouched(void);
void t_too_big(void);
void t_too_big_consistent(void);
void t_discard_last(void);
void t_discard_not_last(void);
void t_flush(void);
void t_flush_empty(void);
void t_flush_ipi(void);
void t_flush_offline(void);

/* twin_unit_reader.c */
void t_get_put_errors(void);
void t_reader_reset(void);
void t_unget(void);
void t_poll_ready(void);
void t_poll_held_full(void);
void t_poll_wakeup(void);
void t_poll_held_wakeup(void);
void t_wait_flush_race(void);

/* twin_unit_nesting.c */
void t_nesting_deep(void);
void t_nested_in_open(void);
void t_cache(void);
void t_cache_busy(void);
void t_claim_window(void);
void t_stale_claim(void);
void t_discarded_monotonic(void);
void t_counts_and_cpus(void);
void t_rings_online_only(void);
void t_memory_guard(void);
void t_event_count_wrap(void);

#endif /* TWIN_UNIT_H */
