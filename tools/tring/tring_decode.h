/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring: a small decoder for tring packets, for tools and tests.
 *
 * Walks the records of one packet (sub-buffer) and rebuilds every
 * record's full timestamp with the CTF 1.8 rule the writer relies on.
 * Payload lengths are not in the records: the caller says how long an
 * event's payload is (from the metadata, or from its own knowledge of
 * the events). Header-only: include it in one program.
 */
#ifndef _TRING_DECODE_H
#define _TRING_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/tring.h>

/**
 * struct tring_dec - position in one packet
 * @h: the packet header.
 * @pos: next record.
 * @end: end of the packet's content.
 * @clock: current time of the stream (ns).
 */
struct tring_dec {
	const struct tring_packet_header *h;
	const uint8_t *pos;
	const uint8_t *end;
	uint64_t clock;
};

/**
 * struct tring_dec_event - one decoded record
 * @id: event id (TRING_ID_PADDING and TRING_ID_NOP records included).
 * @ts: full timestamp (ns).
 * @payload: start of the payload.
 * @len: payload bytes as the length callback said.
 * @extended: the record had an extended header.
 * @hlen: bytes of the record's header: 4 (compact), 8 (wide) or 16
 *	(extended).
 */
struct tring_dec_event {
	uint32_t id;
	uint64_t ts;
	const uint8_t *payload;
	size_t len;
	int extended;
	unsigned int hlen;
};

/*
 * Length of the payload of event @id starting at @payload, of which
 * @avail bytes are in the packet; -1 when unknown or malformed.
 */
typedef long (*tring_dec_len_fn)(uint32_t id, const uint8_t *payload,
				 size_t avail, void *arg);

/**
 * tring_dec_init - start decoding one packet
 * @d: decoder state.
 * @data: the sub-buffer.
 * @size: its bytes (at least the header).
 *
 * Return: 0, or -1 if the header is not a valid tring packet header.
 */
static inline int tring_dec_init(struct tring_dec *d, const void *data,
				 size_t size)
{
	const struct tring_packet_header *h = data;

	if (size < sizeof(*h) || h->magic != TRING_PACKET_MAGIC)
		return -1;
	if (h->content_size % 8 || h->content_size / 8 < sizeof(*h) ||
	    h->content_size > h->packet_size || h->packet_size / 8 > size)
		return -1;
	d->h = h;
	d->pos = (const uint8_t *)data + sizeof(*h);
	d->end = (const uint8_t *)data + h->content_size / 8;
	d->clock = h->timestamp_begin;
	return 0;
}

/* The stream's clock after a compact record's low timestamp bits. */
static inline uint64_t tring_dec_clock(uint64_t clock, uint32_t low)
{
	const uint64_t mask = (1ULL << TRING_TS_BITS) - 1;
	uint64_t t = (clock & ~mask) | low;

	return t < clock ? t + mask + 1 : t;
}

/**
 * tring_dec_next - decode the next record
 * @d: decoder state.
 * @len_fn: payload length of events (padding and nop are known here).
 * @arg: passed to @len_fn.
 * @ev: filled in.
 *
 * Return: 1 for a record, 0 at the end of the packet, -1 on malformed
 * data.
 */
static inline int tring_dec_next(struct tring_dec *d, tring_dec_len_fn len_fn,
				 void *arg, struct tring_dec_event *ev)
{
	struct tring_event_header_ext ext;
	uint32_t word, field, id;
	size_t avail, hlen = 4;
	long len;

	if (d->pos == d->end)
		return 0;
	if ((size_t)(d->end - d->pos) < 4 ||
	    ((uintptr_t)d->pos - (uintptr_t)d->h) % 4)
		return -1;
	memcpy(&word, d->pos, 4);
	field = word & ((1U << TRING_ID_BITS) - 1);
	ev->extended = field == TRING_ID_EXTENDED;
	if (ev->extended) {
		if ((size_t)(d->end - d->pos) < sizeof(ext) ||
		    word != TRING_ID_EXTENDED)
			return -1;
		memcpy(&ext, d->pos, sizeof(ext));
		hlen = sizeof(ext);
		ev->id = ext.id;
		if (ext.timestamp < d->clock)
			return -1;
		d->clock = ext.timestamp;
	} else if (field == TRING_ID_WIDE) {
		if ((size_t)(d->end - d->pos) < 8)
			return -1;
		memcpy(&id, d->pos + 4, 4);
		hlen = 8;
		ev->id = id;
		d->clock = tring_dec_clock(d->clock, word >> TRING_ID_BITS);
	} else {
		ev->id = field;
		d->clock = tring_dec_clock(d->clock, word >> TRING_ID_BITS);
	}
	ev->hlen = hlen;
	ev->ts = d->clock;
	ev->payload = d->pos + hlen;
	avail = d->end - ev->payload;
	if (ev->id == TRING_ID_NOP) {
		len = 0;
	} else if (ev->id == TRING_ID_PADDING) {
		uint32_t sz;

		if (avail < 4)
			return -1;
		memcpy(&sz, ev->payload, 4);
		len = 4 + (long)sz;
	} else {
		len = len_fn ? len_fn(ev->id, ev->payload, avail, arg) : -1;
	}
	if (len < 0 || (size_t)len > avail || (((size_t)len + 3) & ~3UL) > avail)
		return -1;
	ev->len = len;
	d->pos = ev->payload + (((size_t)len + 3) & ~3UL);
	return 1;
}

#endif /* _TRING_DECODE_H */
