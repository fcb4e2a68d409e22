// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's network output: the trace goes to LTTng's relay daemon
 * (lttng-relayd), as LTTng's own consumer sends it, instead of to files.
 *
 * Two TCP connections, both opened by us: control (commands, each
 * answered) and data (packets, never answered). Every number on the wire
 * is big-endian and every structure packed. The relay is spoken to with
 * protocol 2.4 to 2.10 (fixed-size names; 2.11 and later add trace
 * chunks we do not need): version, session, one stream per CPU plus the
 * metadata stream, then per packet its bytes on the data connection and
 * its index on the control connection. A packet's padding is not sent:
 * the relay writes it as zeroes, which is what it holds.
 *
 * This file: the session (version, session, streams), the metadata and
 * the end; relay_data.c sends the packets, relay_net.c makes the
 * connections and does their I/O by deadline; relay_proto.h is the
 * protocol's wire format.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record.h"
#include "relay.h"
#include "relay_proto.h"

/* The relay is lost (@what failed with @err): say why, once; no more sends. */
void tr_relay_fail(struct tr_relay *n, const char *what, int err)
{
	if (n->failed)
		return;
	n->failed = true;
	if (err == -EREMOTEIO) {
		tr_err("%s: %s: the relay refused (status %u%s)", n->url, what,
		       n->refused_code,
		       n->refused_code == RELAY_ERR ? ", LTTNG_ERR" : "");
		return;
	}
	tr_err("%s: %s: %s", n->url, what,
	       err == -EPROTO ? "the relay's answer makes no sense" :
	       err == -ECONNRESET ? "connection closed by the relay" :
	       err == -ETIMEDOUT ? "no answer from the relay" :
	       err == -EINTR ? "interrupted by a signal" :
	       strerror(-err));
}

/* Send command @cmd with @len bytes of @payload (and @extra after it). */
int tr_relay_send_cmd(struct tr_relay *n, uint32_t cmd, const void *payload,
		      size_t len, const void *extra, size_t extra_len)
{
	struct relay_hdr h = {
		.data_size = htobe64(len + extra_len),
		.cmd = htobe32(cmd),
	};
	struct iovec iov[3] = {
		{ &h, sizeof(h) },
		{ (void *)payload, len },
		{ (void *)extra, extra_len },
	};
	size_t done;

	/* The command and its answer: one deadline for both. */
	tr_relay_op_begin(n);
	return tr_relay_send_all(n, n->ctrl, iov, extra_len ? 3 : 2, &done);
}

/* A status the relay answered: 0 for LTTNG_OK, else it refused. */
static int check_code(struct tr_relay *n, uint32_t code)
{
	if (code == RELAY_OK)
		return 0;
	n->refused_code = code;
	return -EREMOTEIO;
}

/* A 4-byte status reply: 0 when it says LTTNG_OK. */
int tr_relay_recv_status(struct tr_relay *n)
{
	uint32_t code;
	int ret = tr_relay_recv_all(n, n->ctrl, &code, sizeof(code));

	if (ret)
		return ret;
	return check_code(n, be32toh(code));
}

/* A reply carrying an id (session, stream handle) and a status. */
static int recv_id(struct tr_relay *n, uint64_t *id)
{
	struct relay_status_id rep;
	int ret = tr_relay_recv_all(n, n->ctrl, &rep, sizeof(rep));

	if (ret)
		return ret;
	ret = check_code(n, be32toh(rep.ret_code));
	if (ret)
		return ret;
	*id = be64toh(rep.id);
	return 0;
}

/* VERSION: the relay answers with its own; both use the lower minor. */
static int relay_version(struct tr_relay *n)
{
	uint32_t v[2] = { htobe32(RELAY_MAJOR), htobe32(RELAY_MINOR_MAX) };
	uint32_t major, minor;
	int ret;

	ret = tr_relay_send_cmd(n, RELAY_VERSION, v, sizeof(v), NULL, 0);
	if (!ret)
		ret = tr_relay_recv_all(n, n->ctrl, v, sizeof(v));
	if (ret) {
		tr_relay_fail(n, "version", ret);
		return ret;
	}
	major = be32toh(v[0]);
	minor = be32toh(v[1]);
	if (major != RELAY_MAJOR || minor < RELAY_MINOR_MIN) {
		tr_err("%s: the relay speaks protocol %" PRIu32 ".%" PRIu32 "; tring-record needs %d.%d or a later %d.x",
		       n->url, major, minor, RELAY_MAJOR, RELAY_MINOR_MIN,
		       RELAY_MAJOR);
		n->failed = true;
		return -EPROTO;
	}
	n->minor = minor < RELAY_MINOR_MAX ? minor : RELAY_MINOR_MAX;
	return 0;
}

static int relay_session(struct tr_relay *n)
{
	struct relay_create_session s;
	int ret;

	memset(&s, 0, sizeof(s));
	snprintf(s.session_name, sizeof(s.session_name), "%s", n->session);
	snprintf(s.hostname, sizeof(s.hostname), "%s", n->hostname);
	s.live_timer = htobe32(n->live_us);
	ret = tr_relay_send_cmd(n, RELAY_CREATE_SESSION, &s, sizeof(s), NULL, 0);
	if (!ret)
		ret = recv_id(n, &n->session_id);
	if (ret)
		tr_relay_fail(n, "creating the session", ret);
	return ret;
}

/* ADD_STREAM: the file @name in the trace's directory. */
static int relay_add(struct tr_relay *n, const char *name, uint64_t *handle)
{
	static struct relay_add_stream s;
	bool cpu = strcmp(name, "metadata");
	int ret;

	memset(&s, 0, sizeof(s));
	snprintf(s.channel_name, sizeof(s.channel_name), "%s", name);
	snprintf(s.pathname, sizeof(s.pathname), "%s", n->path);
	/* --rotate, --max-size: the relay splits a CPU's stream file. */
	s.tracefile_size = htobe64(cpu ? n->tracefile_size : 0);
	s.tracefile_count = htobe64(cpu ? n->tracefile_count : 0);
	ret = tr_relay_send_cmd(n, RELAY_ADD_STREAM, &s, sizeof(s), NULL, 0);
	if (!ret)
		ret = recv_id(n, handle);
	if (ret)
		tr_relay_fail(n, "adding a stream", ret);
	return ret;
}

/* HOST/SESSION[-DATE]/kernel, where lttng-relayd puts LTTng's trace. */
static void relay_path(struct tr_relay *n)
{
	char date[32];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y%m%d-%H%M%S", &tm);
	if (n->session_given)
		snprintf(n->path, sizeof(n->path), "%s/%s-%s/%s", n->hostname,
			 n->session, date, TR_TRACE_SUBDIR);
	else
		snprintf(n->path, sizeof(n->path), "%s/%s/%s", n->hostname,
			 n->session, TR_TRACE_SUBDIR);
}

/**
 * tr_relay_connect - open the session on the relay
 * @r: the run; r->net holds the parsed URL.
 *
 * Return: 0, or TR_EXIT_SETUP with a message naming the URL and why.
 */
int tr_relay_connect(struct tr_rec *r)
{
	struct tr_relay *n = r->net;

	n->rec = r;
	if (gethostname(n->hostname, sizeof(n->hostname) - 1) ||
	    !n->hostname[0])
		strcpy(n->hostname, "localhost");
	relay_path(n);
	if (tr_relay_resolve(n, "/etc/hosts")) {
		tr_err("%s: cannot resolve %s: not an IP%s address, nor a name in /etc/hosts (tring-record asks no DNS server: give the relay's address)",
		       n->url, n->host, n->family == AF_INET6 ? "v6" : "");
		return TR_EXIT_SETUP;
	}
	if (tr_relay_connect_port(n, n->ctrl_port, false, &n->ctrl) ||
	    relay_version(n) || relay_session(n) ||
	    relay_add(n, "metadata", &n->meta_handle) ||
	    tr_relay_connect_port(n, n->data_port, true, &n->data)) {
		tr_relay_close(r, false);
		return TR_EXIT_SETUP;
	}
	tr_note(r, "streaming to %s: session %s of host %s (%s)", n->url,
		n->session, n->hostname, n->path);
	return 0;
}

/*
 * A stream per CPU; the relay shows them to viewers from STREAMS_SENT.
 * A failure at setup is the relay refusing the start (exit status 2);
 * later (a CPU come online), the output failing.
 */
int tr_relay_add_stream(struct tr_rec *r, struct tr_cpu *c)
{
	int fail = r->t_start ? TR_EXIT_OUTPUT : TR_EXIT_SETUP;
	struct tr_relay *n = r->net;
	char name[32];
	int ret;

	if (n->failed)
		return fail;
	snprintf(name, sizeof(name), "stream_%u", c->cpu);
	if (relay_add(n, name, &c->relay_handle))
		return fail;
	c->relay_added = true;
	ret = tr_relay_send_cmd(n, RELAY_STREAMS_SENT, NULL, 0, NULL, 0);
	if (!ret)
		ret = tr_relay_recv_status(n);
	if (ret) {
		tr_relay_fail(n, "publishing the streams", ret);
		return fail;
	}
	return 0;
}

/* FNV-1a over @len bytes: tells event declarations apart. */
static uint64_t hash_bytes(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--) {
		h ^= (unsigned char)*p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * Find the next event declaration ("event {" at a line's start, to the
 * "};" line that closes it) in @text from *@pos. Returns its length, or
 * 0 when there is none; *@pos is left at its start.
 */
static size_t next_event_block(const char *text, size_t len, size_t *pos)
{
	const char *s, *e;

	for (s = text + *pos; s < text + len; s++) {
		if ((s == text || s[-1] == '\n') &&
		    (size_t)(text + len - s) >= 8 && !memcmp(s, "event {\n", 8))
			break;
	}
	if (s >= text + len)
		return 0;
	e = memmem(s, text + len - s, "\n};\n", 4);
	if (!e)
		return 0;
	*pos = s - text;
	return e + 4 - s;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Note the event declarations of the metadata sent first (sorted). */
static int note_events(struct tr_relay *n, const char *text, size_t len)
{
	size_t pos = 0, blen, cap = 0;

	free(n->sent_events);
	n->nsent_events = 0;
	while ((blen = next_event_block(text, len, &pos))) {
		pos += blen;
		cap++;
	}
	n->sent_events = calloc(cap ? cap : 1, sizeof(*n->sent_events));
	if (!n->sent_events)
		return -ENOMEM;
	pos = 0;
	while ((blen = next_event_block(text, len, &pos))) {
		n->sent_events[n->nsent_events++] = hash_bytes(text + pos, blen);
		pos += blen;
	}
	qsort(n->sent_events, n->nsent_events, sizeof(uint64_t), cmp_u64);
	return 0;
}

static int send_metadata(struct tr_relay *n, const char *text, size_t len)
{
	struct {
		uint64_t stream_id;
		uint32_t padding;
	} __attribute__((packed)) m = { htobe64(n->meta_handle), 0 };
	int ret;

	ret = tr_relay_send_cmd(n, RELAY_SEND_METADATA, &m, sizeof(m), text, len);
	if (ret)
		tr_relay_fail(n, "sending the metadata", ret);
	return ret;
}

/*
 * The declarations of events described since the start (a module loaded,
 * a generic event switched on), appended: a CTF reader takes them from
 * the metadata stream as LTTng's live metadata grows.
 */
static int send_new_events(struct tr_relay *n, const char *text, size_t len)
{
	size_t pos = 0, blen, added = 0;
	uint64_t h;
	int ret;

	while ((blen = next_event_block(text, len, &pos))) {
		h = hash_bytes(text + pos, blen);
		if (!bsearch(&h, n->sent_events, n->nsent_events,
			     sizeof(uint64_t), cmp_u64)) {
			ret = send_metadata(n, text + pos, blen);
			if (ret)
				return ret;
			added++;
		}
		pos += blen;
	}
	n->meta_added += added;
	return 0;
}

/**
 * tr_relay_metadata - send the buffer's CTF metadata
 * @r: the run.
 * @text: the metadata file's content.
 * @len: its length.
 * @update: after the start (each live tick, the end): only the event
 *	declarations that are new since then are sent.
 *
 * Return: 0 or -errno (the relay is then given up).
 */
int tr_relay_metadata(struct tr_rec *r, const char *text, size_t len,
		      bool update)
{
	struct tr_relay *n = r->net;
	int ret;

	if (n->failed)
		return -ECONNRESET;
	/* The first copy could not be read: all of it now. */
	if (update && n->meta_sent)
		return send_new_events(n, text, len);
	ret = note_events(n, text, len);
	if (ret)
		return ret;
	ret = send_metadata(n, text, len);
	if (!ret)
		n->meta_sent = len;
	return ret;
}

static void close_stream(struct tr_relay *n, uint64_t handle, uint64_t last)
{
	uint64_t m[2] = { htobe64(handle), htobe64(last) };
	int ret;

	ret = tr_relay_send_cmd(n, RELAY_CLOSE_STREAM, m, sizeof(m), NULL, 0);
	if (!ret)
		ret = tr_relay_recv_status(n);
	if (ret)
		tr_relay_fail(n, "closing a stream", ret);
}

/*
 * Has the relay written every packet of @c? DATA_PENDING answers 0 once
 * it has (data and index), 1 while some are on their way.
 */
static int data_pending(struct tr_relay *n, const struct tr_cpu *c)
{
	uint64_t m[2] = { htobe64(c->relay_handle), htobe64(c->relay_seq - 1) };
	uint32_t code;
	int ret;

	ret = tr_relay_send_cmd(n, RELAY_DATA_PENDING, m, sizeof(m), NULL, 0);
	if (!ret)
		ret = tr_relay_recv_all(n, n->ctrl, &code, sizeof(code));
	if (ret)
		return ret;
	return be32toh(code) ? 1 : 0;
}

/*
 * Wait until the relay has written what was sent (its reply to
 * CLOSE_STREAM comes at once, data or not), TR_RELAY_TIMEOUT_S at most,
 * so that the trace is whole on its disk when tring-record exits.
 */
static void wait_written(struct tr_rec *r)
{
	struct tr_relay *n = r->net;
	uint64_t end = r->ops->now_ns() + n->timeout_s * NSEC_PER_SEC;
	unsigned int i;
	int ret;

	for (i = 0; i < r->ncpus && !n->failed; i++) {
		struct tr_cpu *c = &r->cpus[i];

		if (!c->relay_added || !c->relay_seq)
			continue;
		while ((ret = data_pending(n, c)) == 1 &&
		       r->ops->now_ns() < end)
			r->ops->wait(r, r->set, 0, 20);
		if (ret < 0)
			tr_relay_fail(n, "waiting for the relay to write", ret);
		else if (ret)
			tr_warn("%s: the relay had not written all of cpu%u's packets after %u s",
				n->url, c->cpu, n->timeout_s);
	}
}

/**
 * tr_relay_close - close the streams and the connections
 * @r: the run.
 * @linger: the end of a run: wait until the relay has written what was
 *	sent; in a live session, wait about a live timer more (a second at
 *	least), so that viewers read the last packets before the session
 *	ends for them (they drop what they have not read). A signal cuts
 *	the linger short.
 *
 * Return: 0, or -ECONNRESET when the relay was lost at some point.
 */
int tr_relay_close(struct tr_rec *r, bool linger)
{
	struct tr_relay *n = r->net;
	unsigned int i;
	uint64_t ms;
	int ret;

	if (linger && !n->failed && n->ctrl >= 0)
		wait_written(r);
	if (linger && n->live_us && !n->failed && n->ctrl >= 0) {
		ms = n->live_us / 1000 + 1000;
		r->ops->wait(r, r->set, 0, ms > 10000 ? 10000 : (int)ms);
	}
	for (i = 0; i < r->ncpus && n->ctrl >= 0 && !n->failed; i++)
		if (r->cpus[i].relay_added)
			close_stream(n, r->cpus[i].relay_handle,
				     r->cpus[i].relay_seq - 1);
	if (n->ctrl >= 0 && !n->failed && n->meta_handle != UINT64_MAX)
		close_stream(n, n->meta_handle, UINT64_MAX);
	ret = n->failed ? -ECONNRESET : 0;
	if (n->data >= 0)
		close(n->data);
	if (n->ctrl >= 0)
		close(n->ctrl);
	n->data = n->ctrl = -1;
	free(n->sent_events);
	n->sent_events = NULL;
	free(n->meta_text);
	n->meta_text = NULL;
	return ret;
}
