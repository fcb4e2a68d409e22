// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's connections to LTTng's relay daemon (relay.c speaks its
 * protocol over them): the URL, the relay's addresses (numeric or from
 * /etc/hosts: no DNS, no NSS in a static binary), connecting, and
 * sending and receiving by each operation's deadline, waiting in
 * ppoll() so that a stop signal ends a wait instead of hanging it.
 */
#include <errno.h>
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

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* An operation (a command and its answer, a batch) starts: its deadline. */
void tr_relay_op_begin(struct tr_relay *n)
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
int tr_relay_send_all(struct tr_relay *n, int fd, struct iovec *iov, int cnt,
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
int tr_relay_recv_all(struct tr_relay *n, int fd, void *buf, size_t len)
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
	tr_relay_op_begin(n);
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
int tr_relay_connect_port(struct tr_relay *n, unsigned int port, bool data,
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
