// SPDX-License-Identifier: GPL-2.0
/*
 * tring twin: TAP output, the interrupt levels, packet checks.
 */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "twin.h"

/* ---- UBSan reports become a TAP failure ---- */

#ifdef TWIN_UBSAN
/*
 * Alignment reports are recoverable in the sanitizer build (every other
 * kind aborts): a report is recorded here and the program's last TAP
 * line fails, naming where, instead of the first one ending the run.
 */
void __ubsan_get_current_report_data(const char **kind, const char **msg,
				     const char **file, unsigned int *line,
				     unsigned int *col, char **addr);
void __ubsan_on_report(void);

static unsigned long ub_reports;
static char ub_sites[4][200];

void __ubsan_on_report(void)
{
	const char *kind, *msg, *file;
	unsigned int line, col;
	unsigned long n;
	char *addr;

	__ubsan_get_current_report_data(&kind, &msg, &file, &line, &col,
					&addr);
	n = __atomic_fetch_add(&ub_reports, 1, __ATOMIC_RELAXED);
	if (n < 4)
		snprintf(ub_sites[n], sizeof(ub_sites[n]), "%s:%u: %s",
			 file, line, msg);
}
#endif

/* ---- TAP ---- */

static int tap_count, tap_failed;
static const char *tap_prog;
int tap_case_failed;

void tap_plan_begin(const char *prog)
{
	tap_prog = prog;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

bool tap_check(bool ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return true;
	tap_case_failed = 1;
	printf("# FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	return false;
}

/*
 * A result line. Bytes of @name outside printable ASCII (a test's input
 * line, say) are written as \xNN: a TAP reader in a UTF-8 locale (bash's
 * =~ in make check) matches no line with an invalid sequence, nor should
 * a control character reach a terminal.
 */
void tap_result(const char *name)
{
	const unsigned char *p;

	tap_count++;
	if (tap_case_failed)
		tap_failed++;
	printf("%s %d - ", tap_case_failed ? "not ok" : "ok", tap_count);
	for (p = (const unsigned char *)name; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f)
			putchar(*p);
		else
			printf("\\x%02x", *p);
	}
	putchar('\n');
	tap_case_failed = 0;
}

int tap_finish(void)
{
#ifdef TWIN_UBSAN
	unsigned long i, n = __atomic_load_n(&ub_reports, __ATOMIC_RELAXED);

	for (i = 0; i < n && i < 4; i++)
		printf("# undefined behaviour: %s\n", ub_sites[i]);
	tap_case_failed = n != 0;
	tap_result("no undefined behaviour reported");
#endif
	printf("1..%d\n", tap_count);
	if (tap_failed)
		printf("# %s: %d of %d failed\n", tap_prog, tap_failed,
		       tap_count);
	return tap_failed ? 1 : 0;
}

/* ---- interrupts ---- */

void twin_levels_install(void)
{
	struct sigaction sa;
	int level;

	for (level = 1; level <= TWIN_NR_LEVELS; level++) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = twin_level_handler;
		twin_level_mask(level, &sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		if (sigaction(TWIN_SIG_LEVEL(level), &sa, NULL))
			abort();
	}
}

void twin_raise(int level)
{
	if (pthread_kill(pthread_self(), TWIN_SIG_LEVEL(level)))
		abort();
}

/* ---- buffers and packets ---- */

struct tring_buffer *twin_buffer(size_t subbuf_size, unsigned int count,
				 unsigned int flags, unsigned int clock,
				 unsigned int watermark)
{
	struct tring_buffer_attr attr = {
		.name = "twin",
		.subbuf_size = subbuf_size,
		.subbuf_count = count,
		.flags = flags,
		.clock = clock,
		.watermark = watermark,
	};
	struct tring_buffer *buf = tring_buffer_alloc(&attr);

	if (IS_ERR(buf)) {
		fprintf(stderr, "tring_buffer_alloc: %ld\n", PTR_ERR(buf));
		abort();
	}
	return buf;
}

const char *twin_check_packet(struct tring_cpu *cb,
			      const struct tring_subbuf *sb)
{
	const struct tring_packet_header *h = twin_subbuf_va(cb, sb);
	const unsigned char *p = (const unsigned char *)h;
	size_t i, len;

	if (sb->offset % cb->subbuf_size ||
	    sb->offset >= tring_cpu_map_size(cb))
		return "sub-buffer offset outside the mapping";
	if (h->magic != TRING_PACKET_MAGIC)
		return "bad magic";
	if (h->stream_id != 0)
		return "stream_id not 0";
	if (h->cpu_id != cb->cpu)
		return "cpu_id is not the ring's CPU";
	if (h->packet_seq_num != sb->seq)
		return "packet_seq_num != seq handed out";
	if (h->packet_size != (u64)cb->subbuf_size * 8)
		return "packet_size != subbuf_size * 8";
	if (h->content_size % 32 || h->content_size > h->packet_size ||
	    h->content_size < TRING_PACKET_HEADER_SIZE * 8)
		return "content_size out of range";
	if (sb->length != h->content_size / 8)
		return "length handed out != content_size / 8";
	if (h->timestamp_begin > h->timestamp_end)
		return "timestamp_begin > timestamp_end";
	len = h->content_size / 8;
	for (i = len; i < cb->subbuf_size; i++)
		if (p[i])
			return "non-zero byte after content_size";
	return NULL;
}

unsigned long long twin_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}
