/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tring-record's network output to LTTng's relay daemon (relay.c, its
 * connections in relay_net.c).
 */
#ifndef _TRING_RELAY_H
#define _TRING_RELAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* LTTng's default ports: control and data. */
#define TR_RELAY_CTRL_PORT	5342
#define TR_RELAY_DATA_PORT	5343
/* --live without a value: LTTng's default live timer. */
#define TR_RELAY_LIVE_US	1000000U
/*
 * Longest wait for the relay, per operation (a connect, a command and
 * its answer, a batch and its indexes' answers); TRING_RELAY_TIMEOUT.
 */
#define TR_RELAY_TIMEOUT_S	10
/* Addresses of the relay's host kept (its lines of /etc/hosts). */
#define TR_RELAY_MAX_ADDRS	8

struct tr_rec;
struct tr_cpu;
struct tring_packet_header;

/* The session on the relay; one per run. */
struct tr_relay {
	char url[512];			/* as given, for messages */
	char host[256];			/* host part, without brackets */
	int family;			/* AF_INET6 for net6://, else any */
	unsigned int ctrl_port, data_port;
	char session[201];		/* --session, or tring-DATE */
	bool session_given;
	char hostname[64];		/* this machine's, as the relay files it */
	char path[4096];		/* HOST/SESSION[-DATE]/kernel */
	unsigned int live_us;		/* --live; 0: not live */
	unsigned int timeout_s;
	struct sockaddr_storage addrs[TR_RELAY_MAX_ADDRS];
	socklen_t addr_lens[TR_RELAY_MAX_ADDRS];
	unsigned int naddrs;
	unsigned int addr_used;		/* the one control reached */
	struct tr_rec *rec;		/* the run: its signal mask, its start */
	uint64_t deadline;		/* of the operation under way (ns) */
	uint32_t refused_code;		/* the status of the last refusal */
	uint64_t tracefile_size;	/* --rotate SIZE: per stream file */
	uint64_t tracefile_count;	/* files kept per stream; 0: all */

	int ctrl, data;			/* connections, or -1 */
	unsigned int minor;		/* protocol 2.minor in use */
	uint64_t session_id;
	uint64_t meta_handle;
	size_t meta_sent;		/* metadata bytes sent at the start */
	uint64_t *sent_events;		/* their event declarations' hashes */
	size_t nsent_events;
	uint64_t meta_added;		/* declarations sent since the start */
	char *meta_text;		/* the metadata read last (reused) */
	size_t meta_cap;
	uint64_t beacons;		/* live beacons sent */
	bool failed;			/* lost: nothing more is sent */
};

bool tr_relay_is_url(const char *s);
int tr_relay_parse_url(struct tr_relay *n, const char *url);
int tr_relay_resolve(struct tr_relay *n, const char *hosts);
int tr_relay_connect(struct tr_rec *r);
int tr_relay_add_stream(struct tr_rec *r, struct tr_cpu *c);
int tr_relay_metadata(struct tr_rec *r, const char *text, size_t len,
		      bool update);
int tr_relay_send_batch(struct tr_rec *r, struct tr_cpu *c,
			unsigned int count, unsigned int *sent);
int tr_relay_beacon(struct tr_rec *r, struct tr_cpu *c, uint64_t ts);
int tr_relay_close(struct tr_rec *r, bool linger);
uint32_t tr_relay_packet_bytes(const struct tr_cpu *c,
			       const struct tring_packet_header *h);

/* relay_net.c: connections, and I/O by the operation's deadline (relay.c) */
void tr_relay_op_begin(struct tr_relay *n);
int tr_relay_send_all(struct tr_relay *n, int fd, struct iovec *iov, int cnt,
		      size_t *done);
int tr_relay_recv_all(struct tr_relay *n, int fd, void *buf, size_t len);
int tr_relay_connect_port(struct tr_relay *n, unsigned int port, bool data,
			  int *fdp);

#endif /* _TRING_RELAY_H */
