/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LTTng's relay protocol as tring-record speaks it (2.4 to 2.10): its
 * commands and wire structures, big-endian and packed, and what the
 * files speaking it share (relay.c: the session, the metadata, closing;
 * relay_data.c: the packets and their indexes).
 */
#ifndef _TRING_RELAY_PROTO_H
#define _TRING_RELAY_PROTO_H

#include <stddef.h>
#include <stdint.h>

struct tr_relay;

/* Commands (lttng-tools' enum lttcomm_relayd_command) */
enum {
	RELAY_ADD_STREAM	= 1,
	RELAY_CREATE_SESSION	= 2,
	RELAY_VERSION		= 5,
	RELAY_SEND_METADATA	= 6,
	RELAY_CLOSE_STREAM	= 7,
	RELAY_DATA_PENDING	= 8,
	RELAY_SEND_INDEX	= 13,
	RELAY_STREAMS_SENT	= 16,
};

#define RELAY_OK		10	/* LTTNG_OK */
#define RELAY_ERR		11	/* LTTNG_ERR_UNK, lttng-relayd's refusal */
#define RELAY_MAJOR		2
#define RELAY_MINOR_MIN		4	/* live sessions */
#define RELAY_MINOR_MAX		10	/* fixed-size names */
#define RELAY_MINOR_INDEX_V2	8	/* index with CPU and packet number */

#define RELAY_NAME_LEN		255
#define RELAY_HOST_LEN		64
#define RELAY_CHANNEL_LEN	264
#define RELAY_PATH_LEN		4096

struct relay_hdr {
	uint64_t circuit_id;
	uint64_t data_size;
	uint32_t cmd;
	uint32_t cmd_version;
} __attribute__((packed));

struct relay_data_hdr {
	uint64_t circuit_id;
	uint64_t stream_id;
	uint64_t net_seq_num;
	uint32_t data_size;
	uint32_t padding_size;
} __attribute__((packed));

struct relay_create_session {
	char session_name[RELAY_NAME_LEN];
	char hostname[RELAY_HOST_LEN];
	uint32_t live_timer;
	uint32_t snapshot;
} __attribute__((packed));

struct relay_add_stream {
	char channel_name[RELAY_CHANNEL_LEN];
	char pathname[RELAY_PATH_LEN];
	uint64_t tracefile_size;
	uint64_t tracefile_count;
} __attribute__((packed));

/* Reply to CREATE_SESSION and ADD_STREAM */
struct relay_status_id {
	uint64_t id;
	uint32_t ret_code;
} __attribute__((packed));

struct relay_index {
	uint64_t relay_stream_id;
	uint64_t net_seq_num;
	uint64_t packet_size;
	uint64_t content_size;
	uint64_t timestamp_begin;
	uint64_t timestamp_end;
	uint64_t events_discarded;
	uint64_t stream_id;
	uint64_t stream_instance_id;	/* from 2.8 */
	uint64_t packet_seq_num;	/* from 2.8 */
} __attribute__((packed));

/* The index as one command, ready to send. */
struct relay_index_cmd {
	struct relay_hdr hdr;
	struct relay_index idx;
} __attribute__((packed));

_Static_assert(sizeof(struct relay_hdr) == 24, "relay header");
_Static_assert(sizeof(struct relay_data_hdr) == 32, "data header");
_Static_assert(sizeof(struct relay_create_session) == 327, "session");
_Static_assert(sizeof(struct relay_add_stream) == 4376, "add stream");
_Static_assert(sizeof(struct relay_index) == 80, "index");

/* relay.c */
void tr_relay_fail(struct tr_relay *n, const char *what, int err);
int tr_relay_send_cmd(struct tr_relay *n, uint32_t cmd, const void *payload,
		      size_t len, const void *extra, size_t extra_len);
int tr_relay_recv_status(struct tr_relay *n);

#endif /* _TRING_RELAY_PROTO_H */
