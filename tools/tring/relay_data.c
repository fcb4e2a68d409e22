// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's packets to LTTng's relay daemon: each batch of held
 * sub-buffers goes straight from the read-only mapping, one sendmsg()
 * on the data connection (a data header before each packet, its padding
 * not sent: the relay writes it as zeroes), then each packet's index on
 * the control connection, each answered; and the live beacons of idle
 * CPUs. No event is looked at.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "record.h"
#include "relay.h"
#include "relay_proto.h"

/*
 * Per batch: a data header and an index per packet. Static, like the
 * rest of tring-record's buffers: nothing grows while recording.
 */
static struct relay_data_hdr data_hdr[TR_BATCH];
static struct relay_index_cmd index_cmd[TR_BATCH];
static struct iovec data_iov[2 * TR_BATCH];

/**
 * tr_relay_packet_bytes - bytes of a packet sent to the relay
 * @c: its CPU.
 * @h: its header.
 *
 * Return: its content; the rest is zero padding, which the relay writes.
 * A packet whose header makes no sense goes whole, as it is.
 */
uint32_t tr_relay_packet_bytes(const struct tr_cpu *c,
			       const struct tring_packet_header *h)
{
	uint64_t bytes = h->content_size / 8;

	if (h->magic != TRING_PACKET_MAGIC || bytes < sizeof(*h) ||
	    bytes > c->info.subbuf_size)
		return c->info.subbuf_size;	/* as is, whole */
	return bytes;
}

/* Data header, data and index of packet @i of the batch. */
static void prepare_packet(struct tr_rec *r, struct tr_cpu *c, unsigned int i)
{
	const struct tring_packet_header *h =
		(const void *)(c->map + r->sb[i].offset);
	uint32_t bytes = tr_relay_packet_bytes(c, h);
	uint64_t seq = c->relay_seq + i;
	struct relay_index *x = &index_cmd[i].idx;

	data_hdr[i] = (struct relay_data_hdr){
		.stream_id = htobe64(c->relay_handle),
		.net_seq_num = htobe64(seq),
		.data_size = htobe32(bytes),
		.padding_size = htobe32(c->info.subbuf_size - bytes),
	};
	data_iov[2 * i] = (struct iovec){ &data_hdr[i], sizeof(data_hdr[i]) };
	data_iov[2 * i + 1] = (struct iovec){ (void *)h, bytes };
	index_cmd[i].hdr = (struct relay_hdr){
		.data_size = htobe64(r->net->minor >= RELAY_MINOR_INDEX_V2 ?
				     sizeof(*x) : offsetof(struct relay_index,
							   stream_instance_id)),
		.cmd = htobe32(RELAY_SEND_INDEX),
	};
	*x = (struct relay_index){
		.relay_stream_id = htobe64(c->relay_handle),
		.net_seq_num = htobe64(seq),
		.packet_size = htobe64((uint64_t)c->info.subbuf_size * 8),
		.content_size = htobe64((uint64_t)bytes * 8),
		.timestamp_begin = htobe64(h->timestamp_begin),
		.timestamp_end = htobe64(h->timestamp_end),
		.events_discarded = htobe64(h->events_discarded),
		.stream_id = htobe64(h->stream_id),
		.stream_instance_id = htobe64(c->cpu),
		.packet_seq_num = htobe64(h->packet_seq_num),
	};
}

/* Indexes of the first @count packets, one command each, then replies. */
static int send_indexes(struct tr_relay *n, unsigned int count)
{
	size_t len = be64toh(index_cmd[0].hdr.data_size) + sizeof(struct relay_hdr);
	struct iovec iov[TR_BATCH];
	unsigned int i;
	size_t done;
	int ret;

	for (i = 0; i < count; i++)
		iov[i] = (struct iovec){ &index_cmd[i], len };
	ret = tr_relay_send_all(n, n->ctrl, iov, count, &done);
	for (i = 0; !ret && i < count; i++)
		ret = tr_relay_recv_status(n);
	return ret;
}

/**
 * tr_relay_send_batch - send a batch of held sub-buffers to the relay
 * @r: the run; r->sb holds the batch.
 * @c: its CPU.
 * @count: sub-buffers in it.
 * @sent: set to how many reached the relay whole (data and index).
 *
 * Return: 0, or -errno when the relay is lost (it is then given up).
 */
int tr_relay_send_batch(struct tr_rec *r, struct tr_cpu *c,
			unsigned int count, unsigned int *sent)
{
	struct tr_relay *n = r->net;
	unsigned int i, whole;
	size_t done, need = 0;
	int ret, idx;

	*sent = 0;
	if (n->failed)
		return -ECONNRESET;
	for (i = 0; i < count; i++)
		prepare_packet(r, c, i);
	/* The batch and its indexes' answers: one deadline. */
	tr_relay_op_begin(n);
	ret = tr_relay_send_all(n, n->data, data_iov, 2 * count, &done);
	/* On the relay's disk: the packets whose bytes all went out. */
	for (i = 0; ret && i < count; i++) {
		need += sizeof(data_hdr[i]) + be32toh(data_hdr[i].data_size);
		if (need > done)
			break;
	}
	whole = ret ? i : count;
	if (whole) {
		*sent = whole;
		c->relay_seq += whole;
		idx = send_indexes(n, whole);
		ret = ret ?: idx;
	}
	if (ret)
		tr_relay_fail(n, "sending packets", ret);
	return ret;
}

/**
 * tr_relay_beacon - tell live viewers an idle CPU's stream reached @ts
 * @r: the run.
 * @c: the CPU; it has sent a packet before (the relay ignores a beacon
 *	until then).
 * @ts: its clock, from a flush: nothing it writes later is older.
 *
 * Return: 0 or -errno (the relay is then given up).
 */
int tr_relay_beacon(struct tr_rec *r, struct tr_cpu *c, uint64_t ts)
{
	struct tr_relay *n = r->net;
	struct relay_index_cmd *b = &index_cmd[0];
	int ret;

	if (n->failed)
		return -ECONNRESET;
	memset(b, 0, sizeof(*b));
	b->hdr.data_size = htobe64(n->minor >= RELAY_MINOR_INDEX_V2 ?
				   sizeof(b->idx) :
				   offsetof(struct relay_index,
					    stream_instance_id));
	b->hdr.cmd = htobe32(RELAY_SEND_INDEX);
	b->idx.relay_stream_id = htobe64(c->relay_handle);
	b->idx.net_seq_num = htobe64(c->relay_seq - 1);
	b->idx.timestamp_end = htobe64(ts);
	b->idx.stream_instance_id = htobe64(c->cpu);
	tr_relay_op_begin(n);
	ret = send_indexes(n, 1);
	if (ret)
		tr_relay_fail(n, "sending a live beacon", ret);
	else
		n->beacons++;
	return ret;
}
