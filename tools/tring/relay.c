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
 * Packets are sent straight from the read-only mapping, with one
 * sendmsg() per batch; no event is looked at.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "record.h"
#include "relay.h"

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

/*
 * Per batch: a data header and an index per packet. Static, like the
 * rest of tring-record's buffers: nothing grows while recording.
 */
static struct relay_data_hdr data_hdr[TR_BATCH];
static struct relay_index_cmd index_cmd[TR_BATCH];
static struct iovec data_iov[2 * TR_BATCH];

static void relay_fail(struct tr_relay *n, const char *what, int err)
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

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* An operation (a command and its answer, a batch) starts: its deadline. */
static void op_begin(struct tr_relay *n)
{
	n->deadline = mono_ns() + (uint64_t)n->timeout_s * NSEC_PER_SEC;
}

/*
 * Should a wait for the relay give up? At setup on the first stop signal
 * (nothing is recording yet); while recording on the second (the first
 * stops the recording, whose end still goes to the relay).
 */
static bool relay_interrupted(const struct tr_relay *n)
{
	return tr_stop_requests >= (n->rec && n->rec->t_start ? 2 : 1);
}

/*
 * Sleep in ppoll() until @fd is ready for @events, the operation's
 * deadline passes (-ETIMEDOUT) or a stop signal asks to give up
 * (-EINTR). The stop signals are blocked but while asleep, so that one
 * that comes just before the sleep is not missed; SIGCHLD (COMMAND)
 * only wakes it.
 */
static int relay_wait(struct tr_relay *n, int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };
	const sigset_t *mask;
	struct timespec ts;
	sigset_t stop, old;
	uint64_t now, left;
	int ret;

	tr_stop_sigset(&stop);
	sigprocmask(SIG_BLOCK, &stop, &old);
	mask = n->rec && n->rec->signals_blocked ? &n->rec->wait_mask : &old;
	for (;;) {
		now = mono_ns();
		ret = relay_interrupted(n) ? -EINTR :
		      now >= n->deadline ? -ETIMEDOUT : 0;
		if (ret)
			break;
		left = n->deadline - now;
		ts.tv_sec = left / NSEC_PER_SEC;
		ts.tv_nsec = left % NSEC_PER_SEC;
		ret = ppoll(&p, 1, &ts, mask);
		if (ret > 0 || (ret < 0 && errno != EINTR)) {
			ret = ret > 0 ? 0 : -errno;
			break;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/*
 * Send all of @iov on @fd by the operation's deadline; 0, or -errno
 * (-ETIMEDOUT when the relay takes nothing more, -EINTR on a stop).
 */
static int send_all(struct tr_relay *n, int fd, struct iovec *iov, int cnt,
		    size_t *done)
{
	struct msghdr m = { 0 };
	ssize_t k;
	int ret;

	*done = 0;
	while (cnt > 0) {
		m.msg_iov = iov;
		m.msg_iovlen = cnt > 1024 ? 1024 : cnt;
		k = sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			ret = relay_wait(n, fd, POLLOUT);
			if (ret)
				return ret;
			continue;
		}
		if (k < 0)
			return errno == EPIPE ? -ECONNRESET : -errno;
		*done += k;
		tr_iov_advance(&iov, &cnt, k);
	}
	return 0;
}

/* Receive @len bytes by the operation's deadline, however they trickle. */
static int recv_all(struct tr_relay *n, int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t k;
	int ret;

	while (len) {
		k = recv(fd, p, len, MSG_DONTWAIT);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			ret = relay_wait(n, fd, POLLIN);
			if (ret)
				return ret;
			continue;
		}
		if (k < 0)
			return -errno;
		if (!k)
			return -ECONNRESET;
		p += k;
		len -= k;
	}
	return 0;
}

/* Send command @cmd with @len bytes of @payload (and @extra after it). */
static int send_cmd(struct tr_relay *n, uint32_t cmd, const void *payload,
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
	op_begin(n);
	return send_all(n, n->ctrl, iov, extra_len ? 3 : 2, &done);
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
static int recv_status(struct tr_relay *n)
{
	uint32_t code;
	int ret = recv_all(n, n->ctrl, &code, sizeof(code));

	if (ret)
		return ret;
	return check_code(n, be32toh(code));
}

/* A reply carrying an id (session, stream handle) and a status. */
static int recv_id(struct tr_relay *n, uint64_t *id)
{
	struct relay_status_id rep;
	int ret = recv_all(n, n->ctrl, &rep, sizeof(rep));

	if (ret)
		return ret;
	ret = check_code(n, be32toh(rep.ret_code));
	if (ret)
		return ret;
	*id = be64toh(rep.id);
	return 0;
}

/* @text as an address of the URL's family into @n's list; false if not one. */
static bool add_addr(struct tr_relay *n, const char *text)
{
	struct sockaddr_storage *ss = &n->addrs[n->naddrs];
	struct sockaddr_in6 *a6 = (void *)ss;
	struct sockaddr_in *a4 = (void *)ss;
	char buf[64], *scope;

	if (n->naddrs == TR_RELAY_MAX_ADDRS ||
	    (size_t)snprintf(buf, sizeof(buf), "%s", text) >= sizeof(buf))
		return false;
	memset(ss, 0, sizeof(*ss));
	scope = strchr(buf, '%');
	if (scope)
		*scope++ = '\0';
	if (n->family != AF_INET6 && !scope &&
	    inet_pton(AF_INET, buf, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		n->addr_lens[n->naddrs++] = sizeof(*a4);
		return true;
	}
	if (inet_pton(AF_INET6, buf, &a6->sin6_addr) != 1)
		return false;
	a6->sin6_family = AF_INET6;
	if (scope) {
		a6->sin6_scope_id = if_nametoindex(scope);
		if (!a6->sin6_scope_id)
			a6->sin6_scope_id = strtoul(scope, NULL, 10);
	}
	n->addr_lens[n->naddrs++] = sizeof(*a6);
	return true;
}

/* Does a hosts file line (comment cut) name n->host? Adds its address. */
static void hosts_line(struct tr_relay *n, char *line)
{
	char *save, *addr, *name;

	line[strcspn(line, "#\n")] = '\0';
	addr = strtok_r(line, " \t", &save);
	if (!addr)
		return;
	while ((name = strtok_r(NULL, " \t", &save)))
		if (!strcasecmp(name, n->host)) {
			add_addr(n, addr);
			return;
		}
}

/**
 * tr_relay_resolve - the relay's addresses, once for both connections
 * @n: the parsed URL; n->addrs gets them (the URL's family only).
 * @hosts: the hosts file to look the name up in (/etc/hosts).
 *
 * A numeric address (IPv4, IPv6 with an optional %SCOPE), else the
 * name's lines of @hosts, in their order; "localhost" is the loopback
 * if @hosts does not say. No DNS, and no NSS: getaddrinfo() in a static
 * binary needs the building machine's shared NSS modules at run time.
 *
 * Return: 0, or -ENOENT when the host has no address.
 */
int tr_relay_resolve(struct tr_relay *n, const char *hosts)
{
	char line[512];
	FILE *f;

	n->naddrs = 0;
	if (add_addr(n, n->host))
		return 0;
	f = fopen(hosts, "re");
	while (f && fgets(line, sizeof(line), f))
		hosts_line(n, line);
	if (f)
		fclose(f);
	if (!n->naddrs && !strcasecmp(n->host, "localhost")) {
		add_addr(n, "::1");
		add_addr(n, "127.0.0.1");
	}
	return n->naddrs ? 0 : -ENOENT;
}

/* Connect to address @i at @port by the relay deadline; 0 or -errno. */
static int connect_addr(struct tr_relay *n, unsigned int i, unsigned int port,
			int *fdp)
{
	struct sockaddr_storage sa = n->addrs[i];
	socklen_t len = sizeof(int);
	int fd, err = 0;

	if (sa.ss_family == AF_INET)
		((struct sockaddr_in *)&sa)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&sa)->sin6_port = htons(port);
	fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	op_begin(n);
	if (connect(fd, (void *)&sa, n->addr_lens[i])) {
		err = errno == EINPROGRESS ? relay_wait(n, fd, POLLOUT) : -errno;
		if (!err && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
			err = errno;
		err = err > 0 ? -err : err;
	}
	if (err) {
		close(fd);
		return err;
	}
	*fdp = fd;
	return 0;
}

/*
 * Connect to @port of the relay: control tries each address in turn,
 * data the one control reached. A relay that does not answer, or a stop
 * signal, ends the run with a message instead of hanging it.
 */
static int connect_port(struct tr_relay *n, unsigned int port, bool data,
			int *fdp)
{
	unsigned int i = data ? n->addr_used : 0;
	int err = -EHOSTUNREACH;

	for (; i < n->naddrs; i++) {
		err = connect_addr(n, i, port, fdp);
		if (!err) {
			n->addr_used = i;
			return 0;
		}
		if (data || err == -EINTR)
			break;
	}
	tr_err("%s: cannot connect to %s port %u: %s", n->url, n->host, port,
	       err == -EINTR ? "interrupted by a signal" :
	       err == -ETIMEDOUT ? "no answer" : strerror(-err));
	return err;
}

/* VERSION: the relay answers with its own; both use the lower minor. */
static int relay_version(struct tr_relay *n)
{
	uint32_t v[2] = { htobe32(RELAY_MAJOR), htobe32(RELAY_MINOR_MAX) };
	uint32_t major, minor;
	int ret;

	ret = send_cmd(n, RELAY_VERSION, v, sizeof(v), NULL, 0);
	if (!ret)
		ret = recv_all(n, n->ctrl, v, sizeof(v));
	if (ret) {
		relay_fail(n, "version", ret);
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
	ret = send_cmd(n, RELAY_CREATE_SESSION, &s, sizeof(s), NULL, 0);
	if (!ret)
		ret = recv_id(n, &n->session_id);
	if (ret)
		relay_fail(n, "creating the session", ret);
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
	ret = send_cmd(n, RELAY_ADD_STREAM, &s, sizeof(s), NULL, 0);
	if (!ret)
		ret = recv_id(n, handle);
	if (ret)
		relay_fail(n, "adding a stream", ret);
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
	if (connect_port(n, n->ctrl_port, false, &n->ctrl) ||
	    relay_version(n) || relay_session(n) ||
	    relay_add(n, "metadata", &n->meta_handle) ||
	    connect_port(n, n->data_port, true, &n->data)) {
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
	ret = send_cmd(n, RELAY_STREAMS_SENT, NULL, 0, NULL, 0);
	if (!ret)
		ret = recv_status(n);
	if (ret) {
		relay_fail(n, "publishing the streams", ret);
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

	ret = send_cmd(n, RELAY_SEND_METADATA, &m, sizeof(m), text, len);
	if (ret)
		relay_fail(n, "sending the metadata", ret);
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
	ret = send_all(n, n->ctrl, iov, count, &done);
	for (i = 0; !ret && i < count; i++)
		ret = recv_status(n);
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
	op_begin(n);
	ret = send_all(n, n->data, data_iov, 2 * count, &done);
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
		relay_fail(n, "sending packets", ret);
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
	op_begin(n);
	ret = send_indexes(n, 1);
	if (ret)
		relay_fail(n, "sending a live beacon", ret);
	else
		n->beacons++;
	return ret;
}

static void close_stream(struct tr_relay *n, uint64_t handle, uint64_t last)
{
	uint64_t m[2] = { htobe64(handle), htobe64(last) };
	int ret;

	ret = send_cmd(n, RELAY_CLOSE_STREAM, m, sizeof(m), NULL, 0);
	if (!ret)
		ret = recv_status(n);
	if (ret)
		relay_fail(n, "closing a stream", ret);
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

	ret = send_cmd(n, RELAY_DATA_PENDING, m, sizeof(m), NULL, 0);
	if (!ret)
		ret = recv_all(n, n->ctrl, &code, sizeof(code));
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
			relay_fail(n, "waiting for the relay to write", ret);
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

/* Seconds for each exchange with the relay: TRING_RELAY_TIMEOUT or 10. */
static unsigned int relay_timeout(void)
{
	const char *env = getenv("TRING_RELAY_TIMEOUT");
	unsigned long v;
	char *end;

	if (!env || !*env)
		return TR_RELAY_TIMEOUT_S;
	v = strtoul(env, &end, 10);
	return *end || !v || v > 3600 ? TR_RELAY_TIMEOUT_S : v;
}

/* net://HOST[:CTRL[:DATA]] or net6://; HOST may be [IPv6]. */
bool tr_relay_is_url(const char *s)
{
	return !strncmp(s, "net://", 6) || !strncmp(s, "net6://", 7);
}

static int parse_port(const char *s, char **end, unsigned int *port)
{
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, end, 10);
	if (errno || !v || v > 65535)
		return -EINVAL;
	*port = v;
	return 0;
}

/* HOST, or [HOST]: into n->host; *@rest is what follows. */
static int parse_host(struct tr_relay *n, const char *p, const char **rest)
{
	const char *e;
	size_t len;

	if (*p == '[') {
		e = strchr(++p, ']');
		if (!e)
			return -EINVAL;
		*rest = e + 1;
	} else {
		e = p + strcspn(p, ":/");
		*rest = e;
	}
	len = e - p;
	if (!len || len >= sizeof(n->host))
		return -EINVAL;
	memcpy(n->host, p, len);
	n->host[len] = '\0';
	return 0;
}

/**
 * tr_relay_parse_url - read -o net://HOST[:CTRL_PORT[:DATA_PORT]]
 * @n: filled in.
 * @url: the URL, in LTTng's syntax (net6:// for IPv6 only).
 *
 * Return: 0, or -EINVAL after a message.
 */
int tr_relay_parse_url(struct tr_relay *n, const char *url)
{
	const char *p = url + (url[3] == '6' ? 7 : 6), *rest;
	char *end;

	memset(n, 0, sizeof(*n));
	n->ctrl = n->data = -1;
	n->meta_handle = UINT64_MAX;
	n->timeout_s = relay_timeout();
	n->family = url[3] == '6' ? AF_INET6 : AF_UNSPEC;
	n->ctrl_port = TR_RELAY_CTRL_PORT;
	n->data_port = TR_RELAY_DATA_PORT;
	snprintf(n->url, sizeof(n->url), "%s", url);
	if (parse_host(n, p, &rest))
		goto bad;
	if (*rest == ':') {
		if (parse_port(rest + 1, &end, &n->ctrl_port))
			goto bad;
		rest = end;
		if (*rest == ':') {
			if (parse_port(rest + 1, &end, &n->data_port))
				goto bad;
			rest = end;
		}
	}
	if (*rest == '/')
		rest++;
	if (*rest)
		goto bad;
	return 0;
bad:
	tr_err("bad relay URL '%s' (net://HOST[:CONTROL_PORT[:DATA_PORT]])",
	       url);
	return -EINVAL;
}
