// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's unit tests: -o net:// (relay.c), against a relay of
 * the test's own on 127.0.0.1 (two threads: control and data) that
 * answers as lttng-relayd does and keeps what it was sent.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "test_record.h"

#define MAX_STREAMS	8

static struct {
	int ctrl_lfd, data_lfd;
	unsigned int ctrl_port, data_port;
	uint32_t minor;			/* what it answers to VERSION */
	unsigned int refuse_stream;	/* refuse the ADD_STREAM of this number */
	char session[256], hostname[65];
	uint32_t live_timer;
	char names[MAX_STREAMS][32];	/* by handle */
	uint64_t tracefile_size[MAX_STREAMS], tracefile_count[MAX_STREAMS];
	char path[256];
	unsigned int nstreams;
	size_t meta_bytes;
	unsigned int meta_cmds;
	bool streams_sent;
	uint64_t packets[MAX_STREAMS], indexes[MAX_STREAMS];
	uint64_t closed_last[MAX_STREAMS];
	bool closed[MAX_STREAMS];
	uint64_t data_bytes, padding_bytes, events;
	bool bad_seq, bad_index, bad_beacon;
	uint64_t beacons[MAX_STREAMS], last_end[MAX_STREAMS];
	size_t index_len;		/* payload of the last SEND_INDEX */
	unsigned int pending_asked;	/* DATA_PENDING commands */
	/* The kernel state at the first DATA_PENDING (the linger) */
	char pid_at_linger[64], enable_at_linger[8];
	char pid_path[600], enable_path[600];
	pthread_t ctrl_thread, data_thread;
	pthread_t main_thread;
	/*
	 * How it answers VERSION: RELAY_NORMAL, or not at all and a SIGINT
	 * to the recorder (RELAY_SILENT), or a byte at a time (RELAY_TRICKLE)
	 */
	int version_mode;
	unsigned int silent_index;	/* 1: silent from the second index */
} fr;

enum { RELAY_NORMAL, RELAY_SILENT, RELAY_TRICKLE };

static void on_index(const unsigned char *b);
static void reply_ok(int fd);

/*
 * SEND_INDEX; with fr.silent_index, the relay stops answering after
 * the first and the recorder gets SIGINT twice, 300 ms apart.
 */
static void on_send_index(int fd, const unsigned char *b, size_t len)
{
	struct timespec ms300 = { 0, 300 * 1000 * 1000 };

	fr.index_len = len;
	on_index(b);
	if (fr.silent_index && fr.silent_index++ > 1) {
		if (fr.silent_index != 3)
			return;
		nanosleep(&ms300, NULL);
		pthread_kill(fr.main_thread, SIGINT);
		nanosleep(&ms300, NULL);
		pthread_kill(fr.main_thread, SIGINT);
		return;
	}
	reply_ok(fd);
}

static bool read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t k;

	while (len) {
		k = read(fd, p, len);
		if (k <= 0)
			return false;
		p += k;
		len -= k;
	}
	return true;
}

static void reply(int fd, const void *buf, size_t len)
{
	/* The recorder may have given up and closed: no SIGPIPE here. */
	if (send(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
		fr.bad_index = true;
}

static void reply_id(int fd, uint64_t id)
{
	struct {
		uint64_t id;
		uint32_t code;
	} __attribute__((packed)) r = { htobe64(id), htobe32(10) };

	reply(fd, &r, sizeof(r));
}

static void reply_ok(int fd)
{
	uint32_t code = htobe32(10);

	reply(fd, &code, sizeof(code));
}

static void on_index(const unsigned char *b)
{
	const uint64_t *q = (const uint64_t *)b;
	uint64_t h = be64toh(q[0]), seq = be64toh(q[1]);

	if (h >= MAX_STREAMS)
		return;
	if (!be64toh(q[2])) {
		/* A beacon: only after a packet, never behind one. */
		if (h < MAX_STREAMS && (!fr.indexes[h] ||
					be64toh(q[5]) < fr.last_end[h]))
			fr.bad_beacon = true;
		if (h < MAX_STREAMS)
			fr.beacons[h]++;
		return;
	}
	fr.last_end[h] = be64toh(q[5]);
	if (seq != fr.indexes[h] || be64toh(q[8]) != h - 1 ||
	    be64toh(q[9]) != seq)
		fr.bad_index = true;
	fr.indexes[h]++;
}

static void on_add_stream(int fd, const unsigned char *b)
{
	unsigned int h;

	if (fr.refuse_stream && fr.nstreams == fr.refuse_stream) {
		reply(fd, (uint32_t[3]){ 0, 0, htobe32(1) }, 12);
		return;
	}
	h = fr.nstreams++;
	memcpy(fr.names[h], b, sizeof(fr.names[h]) - 1);
	fr.tracefile_size[h] = be64toh(*(const uint64_t *)(b + 4360));
	fr.tracefile_count[h] = be64toh(*(const uint64_t *)(b + 4368));
	memcpy(fr.path, b + 264, sizeof(fr.path) - 1);
	reply_id(fd, h);
}

/* DATA_PENDING: pending while the data thread has not had the last one. */
static void on_pending(int fd, const unsigned char *b)
{
	uint64_t h = be64toh(*(const uint64_t *)b);
	uint32_t code;

	code = htobe32(h < MAX_STREAMS &&
		       __atomic_load_n(&fr.packets[h], __ATOMIC_ACQUIRE) <
		       be64toh(*(const uint64_t *)(b + 8)) + 1);
	if (!fr.pending_asked && fr.pid_path[0]) {
		tr_read_small_file(fr.pid_path, fr.pid_at_linger,
				   sizeof(fr.pid_at_linger));
		tr_read_small_file(fr.enable_path, fr.enable_at_linger,
				   sizeof(fr.enable_at_linger));
	}
	fr.pending_asked++;
	reply(fd, &code, 4);
}

static void on_version(int fd, const uint32_t *v)
{
	struct timespec ms300 = { 0, 300 * 1000 * 1000 };
	unsigned int i;

	switch (fr.version_mode) {
	case RELAY_SILENT:
		nanosleep(&ms300, NULL);
		pthread_kill(fr.main_thread, SIGINT);
		break;
	case RELAY_TRICKLE:
		for (i = 0; i < 8; i++) {
			nanosleep(&ms300, NULL);
			reply(fd, (const char *)v + i, 1);
		}
		break;
	default:
		reply(fd, v, 8);
	}
}

static void on_cmd(int fd, uint32_t cmd, const unsigned char *b, size_t len)
{
	uint32_t v[2] = { htobe32(2), htobe32(fr.minor) };
	unsigned int h;

	switch (cmd) {
	case 5:
		on_version(fd, v);
		break;
	case 2:
		memcpy(fr.session, b, 255);
		memcpy(fr.hostname, b + 255, 64);
		fr.live_timer = be32toh(*(const uint32_t *)(b + 319));
		reply_id(fd, 77);
		break;
	case 1:
		on_add_stream(fd, b);
		break;
	case 6:
		fr.meta_bytes += len - 12;
		fr.meta_cmds++;
		break;
	case 16:
		fr.streams_sent = true;
		reply_ok(fd);
		break;
	case 8:
		on_pending(fd, b);
		break;
	case 13:
		on_send_index(fd, b, len);
		break;
	case 7:
		h = be64toh(*(const uint64_t *)b);
		if (h < MAX_STREAMS) {
			fr.closed[h] = true;
			fr.closed_last[h] = be64toh(*(const uint64_t *)(b + 8));
		}
		reply_ok(fd);
		break;
	}
}

static void *ctrl_fn(void *arg)
{
	static unsigned char buf[1 << 20];
	unsigned char hdr[24];
	uint64_t size;
	int fd = accept(fr.ctrl_lfd, NULL, NULL);

	(void)arg;
	while (fd >= 0 && read_full(fd, hdr, sizeof(hdr))) {
		size = be64toh(*(uint64_t *)(hdr + 8));
		if (size > sizeof(buf) || !read_full(fd, buf, size))
			break;
		on_cmd(fd, be32toh(*(uint32_t *)(hdr + 16)), buf, size);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void *data_fn(void *arg)
{
	static unsigned char buf[1 << 20];
	unsigned char hdr[32];
	uint64_t h, seq;
	uint32_t size;
	int fd = accept(fr.data_lfd, NULL, NULL);

	(void)arg;
	while (fd >= 0 && read_full(fd, hdr, sizeof(hdr))) {
		h = be64toh(*(uint64_t *)(hdr + 8));
		seq = be64toh(*(uint64_t *)(hdr + 16));
		size = be32toh(*(uint32_t *)(hdr + 24));
		if (size > sizeof(buf) || !read_full(fd, buf, size) ||
		    h >= MAX_STREAMS)
			break;
		if (seq != fr.packets[h])
			fr.bad_seq = true;
		__atomic_store_n(&fr.packets[h], fr.packets[h] + 1,
				 __ATOMIC_RELEASE);
		fr.data_bytes += size;
		fr.padding_bytes += be32toh(*(uint32_t *)(hdr + 28));
		fr.events += ((const struct tring_packet_header *)buf)->events_count;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int listen_any(unsigned int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (void *)&a, sizeof(a)) || listen(fd, 2) ||
	    getsockname(fd, (void *)&a, &len))
		abort();
	*port = ntohs(a.sin_port);
	return fd;
}

static void relay_start(uint32_t minor)
{
	memset(&fr, 0, sizeof(fr));
	fr.minor = minor;
	fr.main_thread = pthread_self();
	fr.ctrl_lfd = listen_any(&fr.ctrl_port);
	fr.data_lfd = listen_any(&fr.data_port);
	pthread_create(&fr.ctrl_thread, NULL, ctrl_fn, NULL);
	pthread_create(&fr.data_thread, NULL, data_fn, NULL);
}

/* After the run: the connections are closed, the threads end. */
static void relay_stop(void)
{
	shutdown(fr.ctrl_lfd, SHUT_RDWR);
	shutdown(fr.data_lfd, SHUT_RDWR);
	pthread_join(fr.ctrl_thread, NULL);
	pthread_join(fr.data_thread, NULL);
	close(fr.ctrl_lfd);
	close(fr.data_lfd);
}

static int record_net(const char *extra)
{
	char args[1024];

	snprintf(args, sizeof(args), "-o net://127.0.0.1:%u:%u %s",
		 fr.ctrl_port, fr.data_port, extra);
	return record(args);
}

#define META_EV(n) "event {\n\tname = \"" n "\";\n\tid = 1;\n};\n\n"
#define META "/* CTF 1.8 */\ntrace {\n\tuuid = \"1\";\n};\n\n" META_EV("a")

static char meta_path[600];

/* A fake kernel of @ncpus CPUs with metadata, a relay answering 2.@minor. */
static void net_setup(unsigned int ncpus, void (*tick)(unsigned int),
		      uint32_t minor)
{
	fake_setup(ncpus, 4096, 8, false);
	snprintf(meta_path, sizeof(meta_path), "%s/metadata", fk.tring);
	write_file(meta_path, META);
	fk.tick = tick;
	relay_start(minor);
}

static void tick_send(unsigned int n)
{
	/* An event described while recording: its declaration alone is sent. */
	if (n == 2)
		write_file(meta_path, META META_EV("b"));
	if (n <= 3) {
		produce(0, 3, 10);
		produce(1, 2, 10);
	} else if (n == 4) {
		partial(0, 5);
		raise(SIGINT);
	}
}

/* Every packet reaches the relay, with its index, in order. */
static void test_relay_stream(void)
{
	char args[512];

	net_setup(2, tick_send, 13);
	mkdirs("%s", fk.out);
	snprintf(args, sizeof(args), "--session web --summary %s/.tring-record.summary",
		 fk.out);
	CHECK(record_net(args) == 0);
	relay_stop();
	CHECK(sum("cpu0.subbufs") == 10 && sum("cpu1.subbufs") == 6);
	CHECK(sum("total.events") == 155 && sum("exit_status") == 0);
	CHECK(!strcmp(fr.session, "web"));
	CHECK(fr.hostname[0] != '\0');
	CHECK(fr.live_timer == 0);
	CHECK(fr.nstreams == 3);
	CHECK(!strcmp(fr.names[0], "metadata"));
	CHECK(!strcmp(fr.names[1], "stream_0"));
	CHECK(!strcmp(fr.names[2], "stream_1"));
	CHECK(strstr(fr.path, "/web-") && strstr(fr.path, "/kernel"));
	CHECK(!strncmp(fr.path, fr.hostname, strlen(fr.hostname)));
	CHECK(fr.streams_sent);
	CHECK(fr.meta_cmds == 2);
	/* From "event {" to its "};" line. */
	CHECK(fr.meta_bytes == strlen(META) + strlen(META_EV("b")) - 1);
	CHECK(fr.packets[1] == 10 && fr.packets[2] == 6);
	CHECK(fr.indexes[1] == 10 && fr.indexes[2] == 6);
	CHECK(fr.events == 9 * 10 + 5 + 6 * 10);
	CHECK(fr.data_bytes + fr.padding_bytes == 16 * (4096 + 0ULL));
	CHECK(!fr.bad_seq && !fr.bad_index);
	CHECK(fr.index_len == 80);
	CHECK(fr.pending_asked >= 2);
	CHECK(fr.closed[0] && fr.closed_last[0] == UINT64_MAX);
	CHECK(fr.closed[1] && fr.closed_last[1] == 9);
	CHECK(fr.closed[2] && fr.closed_last[2] == 5);
	CHECK(err_has("streaming to net://127.0.0.1:"));
}

/* An older relay (2.4): the 64-byte index; a newer one is met at 2.10. */
static void test_relay_old_minor(void)
{
	net_setup(1, tick_send, 4);
	CHECK(record_net("") == 0);
	relay_stop();
	CHECK(fr.packets[1] == 10);
	CHECK(!fr.bad_seq);
	/* Without the CPU and the packet number before 2.8. */
	CHECK(fr.index_len == 64);
}

static void test_relay_errors(void)
{
	fake_setup(1, 4096, 8, false);
	CHECK(record("-o net://") == TR_EXIT_USAGE);
	CHECK(err_has("bad relay URL"));
	CHECK(record("-o net://h:0") == TR_EXIT_USAGE);
	CHECK(record("-o net://h:1:70000") == TR_EXIT_USAGE);
	CHECK(record("-o net://h:1:2:3") == TR_EXIT_USAGE);
	CHECK(record("-o net://h:x") == TR_EXIT_USAGE);
	CHECK(record("-o net://[::1") == TR_EXIT_USAGE);
	CHECK(record("--live") == TR_EXIT_USAGE);
	CHECK(err_has("need -o net://"));
	CHECK(record("-o net://h --live=0") == TR_EXIT_USAGE);
	CHECK(record("-o net://h --session a/b") == TR_EXIT_USAGE);
	/* Nothing listens on port 1 of the loopback. */
	CHECK(record("-o net://127.0.0.1:1") == TR_EXIT_SETUP);
	CHECK(err_has("net://127.0.0.1:1: cannot connect to 127.0.0.1 port 1"));
	CHECK(record("-o net://[::1]:1") == TR_EXIT_SETUP);
	CHECK(err_has("cannot connect to ::1 port 1"));
}

static void tick_live(unsigned int n)
{
	if (n <= 20)
		produce(0, 1, 10);
	else if (n == 21)
		raise(SIGINT);
}

/*
 * --live: CPU 1 writes nothing, so it gets an empty packet first, then
 * beacons at the ticks, none older than its packet; CPU 0's packets all
 * go. A module without empty packets: a warning, no beacons.
 */
static void test_relay_live(void)
{
	net_setup(2, tick_live, 13);
	CHECK(record_net("--live=2000 -w 1") == 0);
	relay_stop();
	CHECK(fr.live_timer == 2000);
	CHECK(fk.live_flushes > 4);
	CHECK(fr.packets[1] == 20 + 1 || fr.packets[1] == 20);
	CHECK(fr.events == 200);
	CHECK(fr.packets[2] == 1 && fr.indexes[2] == 1);
	CHECK(fr.beacons[2] >= 2);
	CHECK(!fr.bad_beacon && !fr.bad_seq && !fr.bad_index);

	net_setup(2, tick_live, 13);
	fk.no_empty = true;
	CHECK(record_net("--live=2000 -w 1") == 0);
	relay_stop();
	CHECK(err_has("makes no empty packets"));
	CHECK(fr.events == 200);
	CHECK(fr.packets[2] == 0 && fr.beacons[2] == 0);
}

/* A relay that refuses a CPU's stream at the start: exit 2, nothing sent. */
static void test_relay_refuses_stream(void)
{
	net_setup(2, tick_send, 13);
	fr.refuse_stream = 2;
	CHECK(record_net("") == TR_EXIT_SETUP);
	relay_stop();
	/* The relay's status, not "garbage". */
	CHECK(err_has("adding a stream: the relay refused (status 1)"));
	CHECK(fr.packets[1] == 0);
}

/*
 * The kernel state (-e's enables, -p's tracking) is put back right after
 * the drain, not after the relay's linger and its round trips.
 */
static void test_relay_restore_first(void)
{
	char args[600];

	net_setup(1, tick_send, 13);
	mkdirs("%s/tracking", fk.tring);
	mkdirs("%s/events/sched/sched_switch", fk.tring);
	snprintf(fr.pid_path, sizeof(fr.pid_path), "%s/tracking/pid", fk.tring);
	write_file(fr.pid_path, "");
	snprintf(args, sizeof(args), "%s/tracking/follow", fk.tring);
	write_file(args, "0\n");
	snprintf(fr.enable_path, sizeof(fr.enable_path),
		 "%s/events/sched/sched_switch/enable", fk.tring);
	write_file(fr.enable_path, "0\n");
	snprintf(args, sizeof(args), "-e sched_switch -p %d", (int)getpid());
	CHECK(record_net(args) == 0);
	relay_stop();
	CHECK(fr.pending_asked >= 1);
	CHECK(!strcmp(fr.pid_at_linger, "\n") || !fr.pid_at_linger[0]);
	CHECK(fr.enable_at_linger[0] == '0');
}

static double real_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A relay that does not answer: Ctrl-C ends the wait at once (it was
 * retried until the 10 s timeout, twice over).
 */
static void test_relay_silent_signal(void)
{
	double t0;

	net_setup(1, tick_send, 13);
	fr.version_mode = RELAY_SILENT;
	t0 = real_s();
	CHECK(record_net("") == TR_EXIT_SETUP);
	CHECK(real_s() - t0 < 3);
	relay_stop();
	CHECK(err_has("version: interrupted by a signal"));
}

static void tick_one_batch(unsigned int n)
{
	if (n == 1)
		produce(0, 3, 10);
}

/*
 * A relay that stops answering while recording: the first SIGINT stops
 * the recording (its end still goes to the relay), the second ends the
 * wait for the relay at once (it was retried until the 10 s timeout).
 */
static void test_relay_silent_recording(void)
{
	double t0;

	net_setup(1, tick_one_batch, 13);
	fr.silent_index = 1;
	t0 = real_s();
	CHECK(record_net("-w 1") == TR_EXIT_OUTPUT);
	CHECK(real_s() - t0 < 3);
	relay_stop();
	CHECK(err_has("sending packets: interrupted by a signal"));
}

/*
 * A relay trickling its answer a byte at a time: the limit is on the
 * whole exchange, not on each system call (it held the start for 8
 * timeouts' worth).
 */
static void test_relay_trickle(void)
{
	double t0;

	net_setup(1, tick_send, 13);
	fr.version_mode = RELAY_TRICKLE;
	setenv("TRING_RELAY_TIMEOUT", "1", 1);
	t0 = real_s();
	CHECK(record_net("") == TR_EXIT_SETUP);
	CHECK(real_s() - t0 < 2);
	unsetenv("TRING_RELAY_TIMEOUT");
	relay_stop();
	CHECK(err_has("version: no answer from the relay"));
}

/*
 * The relay's host is resolved once, without NSS: numeric addresses,
 * else the hosts file; control and data use the same address.
 */
static void test_relay_resolve(void)
{
	char hosts[600];
	struct tr_relay n;

	fake_setup(1, 4096, 8, false);
	snprintf(hosts, sizeof(hosts), "%s/hosts", fk.root);
	write_file(hosts, "# comment\n10.1.2.3 other\n"
		   "192.0.2.7\tcollector.example collector # the relay\n"
		   "2001:db8::7 collector\n");
	CHECK(!tr_relay_parse_url(&n, "net://Collector:1"));
	CHECK(!tr_relay_resolve(&n, hosts) && n.naddrs == 2);
	CHECK(n.addrs[0].ss_family == AF_INET &&
	      ((struct sockaddr_in *)&n.addrs[0])->sin_addr.s_addr ==
	      inet_addr("192.0.2.7"));
	CHECK(n.addrs[1].ss_family == AF_INET6);
	CHECK(!tr_relay_parse_url(&n, "net6://collector"));
	CHECK(!tr_relay_resolve(&n, hosts) && n.naddrs == 1 &&
	      n.addrs[0].ss_family == AF_INET6);
	CHECK(!tr_relay_parse_url(&n, "net://[fe80::1%1]:5"));
	CHECK(!tr_relay_resolve(&n, hosts) && n.naddrs == 1 &&
	      ((struct sockaddr_in6 *)&n.addrs[0])->sin6_scope_id == 1);
	CHECK(!tr_relay_parse_url(&n, "net://nosuch.example"));
	CHECK(tr_relay_resolve(&n, hosts) == -ENOENT);
	CHECK(!tr_relay_parse_url(&n, "net://localhost"));
	CHECK(!tr_relay_resolve(&n, "/nonexistent") && n.naddrs == 2);
	CHECK(record("-o net://nosuch.invalid") == TR_EXIT_SETUP);
	CHECK(err_has("cannot resolve nosuch.invalid: not an IP address, nor a name in /etc/hosts"));
}

/*
 * Streaming, --rotate SIZE is each CPU stream's tracefile_size (the
 * relay splits the files), --max-size its tracefile_count.
 */
static void test_relay_tracefile(void)
{
	net_setup(2, tick_send, 13);
	CHECK(record_net("--rotate 1M --max-size 4M") == 0);
	relay_stop();
	CHECK(fr.nstreams == 3);
	CHECK(fr.tracefile_size[0] == 0 && fr.tracefile_count[0] == 0);
	CHECK(fr.tracefile_size[1] == 1 << 20 && fr.tracefile_count[1] == 4);
	CHECK(fr.tracefile_size[2] == 1 << 20 && fr.tracefile_count[2] == 4);
	CHECK(fr.events == 9 * 10 + 5 + 6 * 10);
	CHECK(record("-o net://127.0.0.1 --rotate 60") == TR_EXIT_USAGE);
}

const struct test relay_tests[] = {
	{ "relay_silent_recording", test_relay_silent_recording },
	{ "relay_tracefile", test_relay_tracefile },
	{ "relay_silent_signal", test_relay_silent_signal },
	{ "relay_trickle", test_relay_trickle },
	{ "relay_resolve", test_relay_resolve },
	{ "relay_restore_first", test_relay_restore_first },
	{ "relay_refuses_stream", test_relay_refuses_stream },
	{ "relay_live", test_relay_live },
	{ "relay_stream", test_relay_stream },
	{ "relay_old_minor", test_relay_old_minor },
	{ "relay_errors", test_relay_errors },
	{ NULL },
};
