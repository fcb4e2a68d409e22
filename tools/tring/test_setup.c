// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's unit test: the command line, environment, knobs and output directory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_record.h"

static void test_knobs(void)
{
	const char *a, *b, *c, *d, *o;

	fake_setup(2, 4096, 8, false);
	fk.tick = tick_stop;
	CHECK(record("-b 256K -s 8 --overwrite --clock local -w 3") == 0);
	a = strstr(fk.events, "knob buffer_subbuf_size_kb=8\n");
	b = strstr(fk.events, "knob buffer_size_kb=256\n");
	c = strstr(fk.events, "knob overwrite=1\n");
	d = strstr(fk.events, "knob trace_clock=local\n");
	o = strstr(fk.events, "open 0\n");
	CHECK(a && b && c && d && o);
	/* Sub-buffer size first, and every knob before any stream opens. */
	CHECK(a < b && b < o && c < o && d < o);
	CHECK(strstr(fk.events, "wm 0 3\n") && strstr(fk.events, "wm 1 3\n"));
	CHECK(sum("watermark") == 3);

	/* The knobs already hold these values: nothing is rebuilt. */
	fk.events[0] = '\0';
	CHECK(record("--force -b 256 -s 8 --overwrite --clock local") == 0);
	CHECK(!strstr(fk.events, "knob"));

	/* -b and -s with a suffix. */
	fk.events[0] = '\0';
	CHECK(record("--force -b 4M -s 1M") == 0);
	CHECK(strstr(fk.events, "knob buffer_subbuf_size_kb=1024\n"));
	CHECK(strstr(fk.events, "knob buffer_size_kb=4096\n"));

	/* Clamped watermark: warned. */
	CHECK(record("--force -w 100") == 0);
	CHECK(err_has("the kernel uses 7"));
}

static void test_nice(void)
{
	fake_setup(1, 4096, 8, false);
	fk.tick = tick_stop;
	CHECK(record("") == 0);
	CHECK(strstr(fk.events, "nice -10\n") && (int64_t)sum("nice") == -10);
	/* Started with a lower value already: left alone. */
	fk.nice = -15;
	fk.events[0] = '\0';
	CHECK(record("--force") == 0);
	CHECK(!strstr(fk.events, "nice ") && (int64_t)sum("nice") == -15);
	/* --nice sets its value, a higher one too. */
	CHECK(record("--force --nice 5") == 0);
	CHECK(strstr(fk.events, "nice 5\n") && sum("nice") == 5);
	CHECK(record("--force --nice -1") == 0 && (int64_t)sum("nice") == -1);
	/* Refused: a warning, and the recording goes on. */
	fk.nice = 0;
	fk.nice_err = EACCES;
	CHECK(record("--force") == 0);
	CHECK(err_has("cannot set the nice value -10: Permission denied"));
	CHECK(sum("nice") == 0);
	CHECK(record("--force --nice 20") == TR_EXIT_USAGE);
	CHECK(err_has("invalid nice value '20': expected -20 to 19"));
	CHECK(record("--force --nice x") == TR_EXIT_USAGE);
}

static void test_knob_busy(void)
{
	fake_setup(1, 4096, 8, false);
	fk.knob_err = EBUSY;
	CHECK(record("-b 512") == TR_EXIT_SETUP);
	CHECK(err_has("cannot set buffer_size_kb: the buffer is in use"));
	CHECK(!strstr(fk.events, "open"));
	/* The output directory this run made is gone again. */
	CHECK(out_size("") == -1);
	fk.knob_err = EINVAL;
	CHECK(record("--clock local") == TR_EXIT_SETUP);
	CHECK(err_has("the kernel refused trace_clock = local"));
}

static void test_environment(void)
{
	char args[1024];

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_stop;
	fk.euid = 1000;
	CHECK(record("") == TR_EXIT_SETUP);
	CHECK(err_has("must be run as root"));
	fk.euid = 0;

	snprintf(args, sizeof(args), "--debugfs %s/nope -o %s", fk.root, fk.out);
	CHECK(run(args) == TR_EXIT_SETUP);
	CHECK(err_has("debugfs is not mounted at"));

	/* The default path is checked for being a debugfs. */
	fk.is_debugfs = false;
	unsetenv("TRING_DEBUGFS");
	snprintf(args, sizeof(args), "-o %s", fk.out);
	CHECK(run(args) == TR_EXIT_SETUP);
	CHECK(err_has("debugfs is not mounted at /sys/kernel/debug"));

	/* TRING_DEBUGFS is honoured (and trusted). */
	setenv("TRING_DEBUGFS", fk.dbg, 1);
	CHECK(run(args) == 0);
	unsetenv("TRING_DEBUGFS");
	fk.is_debugfs = true;

	snprintf(args, sizeof(args), "--debugfs %s -o %s", fk.root, fk.out);
	CHECK(run(args) == TR_EXIT_SETUP);
	CHECK(err_has("the tring module is not loaded"));

	CHECK(record("--force --instance nope") == TR_EXIT_SETUP);
	CHECK(err_has("no buffer instance 'nope'"));

	ring(0)->busy = true;
	CHECK(record("--force") == TR_EXIT_SETUP);
	CHECK(err_has("cpu0: the stream is already open"));
}

static void tick_instance(unsigned int n)
{
	if (n == 1)
		produce(1, 2, 3);
	else
		tr_request_stop();
}

static void test_instance(void)
{
	char dir[600], path[700], root[700];
	uint64_t ev;

	fake_setup(2, 4096, 8, false);
	snprintf(dir, sizeof(dir), "%s/instances/foo", fk.tring);
	fake_tree(dir, 2, false);
	fk.tick = tick_instance;
	CHECK(record("--instance foo") == 0);
	CHECK(strstr(ring(1)->path, "/tring/instances/foo/per_cpu/cpu1/stream") != NULL);
	CHECK(stream_valid(1, 0, 2, &ev) && ev == 6);
	CHECK(sum_is("buffer", "foo"));
	CHECK(record("--force --instance foo -b 64") == TR_EXIT_SETUP);
	CHECK(err_has("has no knob buffer_size_kb"));
	/* -C writes the instance's context file, and puts it back. */
	snprintf(path, sizeof(path), "%s/context", dir);
	write_file(path, "\n");
	snprintf(root, sizeof(root), "%s/context", fk.tring);
	write_file(root, "tid\n");
	tring_capture_at_start("instances/foo/context");
	CHECK(record("--force --instance foo -C pid,procname") == 0);
	CHECK(!strcmp(tring_captured, "pid,procname"));
	CHECK(!strcmp(tring_first_line("instances/foo/context"), ""));
	CHECK(!strcmp(tring_first_line("context"), "tid"));
	unlink(path);
	CHECK(record("--force --instance foo -C pid") == TR_EXIT_SETUP);
	CHECK(err_has("or a frozen one?"));
	CHECK(record("--force --instance ../x") == TR_EXIT_USAGE);
}

static void test_cpu_list(void)
{
	unsigned char bm[TR_MAX_CPUS / 8];

	memset(bm, 0, sizeof(bm));
	CHECK(tr_parse_cpulist("0,2-3", bm) == 0);
	CHECK(tr_cpu_isset(bm, 0) && !tr_cpu_isset(bm, 1) &&
	      tr_cpu_isset(bm, 2) && tr_cpu_isset(bm, 3) &&
	      !tr_cpu_isset(bm, 4));
	CHECK(tr_parse_cpulist("0-8191", bm) == 0 && tr_cpu_isset(bm, 8191));
	CHECK(tr_parse_cpulist("", bm) < 0);
	CHECK(tr_parse_cpulist("1,", bm) < 0);
	CHECK(tr_parse_cpulist("3-1", bm) < 0);
	CHECK(tr_parse_cpulist("a", bm) < 0);
	CHECK(tr_parse_cpulist("-1", bm) < 0);
	CHECK(tr_parse_cpulist("1-", bm) < 0);
	CHECK(tr_parse_cpulist("8192", bm) < 0);
	CHECK(tr_parse_cpulist("1 ,2", bm) < 0);

	fake_setup(4, 4096, 8, false);
	fk.tick = tick_stop;
	CHECK(record("-c 0,2") == 0);
	CHECK(out_size("kernel/stream_0") == 0 && out_size("kernel/stream_2") == 0);
	CHECK(out_size("kernel/stream_1") == -1 && out_size("kernel/stream_3") == -1);
	CHECK(!strstr(fk.events, "open 1") && !strstr(fk.events, "open 3"));
	CHECK(sum_is("cpus", "0,2"));
	CHECK(record("--force -c 1-5") == TR_EXIT_SETUP);
	CHECK(err_has("CPU 4 has no stream"));
	CHECK(record("--force -c x") == TR_EXIT_USAGE);
}

static void test_output_dir(void)
{
	char path[1024];

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_stop;
	mkdirs("%s/kernel", fk.out);
	/* From a run on more CPUs: would become part of the trace. */
	snprintf(path, sizeof(path), "%s/kernel/stream_7", fk.out);
	write_file(path, "stale");
	snprintf(path, sizeof(path), "%s/kernel/junk", fk.out);
	write_file(path, "junk");
	snprintf(path, sizeof(path), "%s/notes.txt", fk.out);
	write_file(path, "mine");
	CHECK(record("") == TR_EXIT_USAGE);
	CHECK(err_has("is not empty (use --force"));
	CHECK(out_size("kernel/stream_7") == 5);
	CHECK(record("--force") == 0);
	CHECK(out_size("kernel/stream_7") == -1);
	CHECK(out_size("notes.txt") == 4);
	CHECK(out_size("kernel/junk") == 4);
	CHECK(out_size("kernel/stream_0") == 0);
	/* Only what is in the trace's directory would be read as a stream. */
	CHECK(err_has("/kernel holds files that are not part of the trace"));
	snprintf(path, sizeof(path), "%s/kernel/junk", fk.out);
	unlink(path);
	CHECK(record("--force") == 0);
	CHECK(!err_has("not part of the trace"));

	/* Output path is a file. */
	snprintf(path, sizeof(path), "--debugfs %s -o %s/notes.txt", fk.dbg,
		 fk.out);
	CHECK(run(path) == TR_EXIT_USAGE);
	CHECK(err_has("is not a directory"));

	/* Parents are created. */
	snprintf(path, sizeof(path), "--debugfs %s -o %s/a/b/c", fk.dbg,
		 fk.root);
	CHECK(run(path) == 0);
	snprintf(path, sizeof(path), "%s/a/b/c/kernel/stream_0", fk.root);
	CHECK(!access(path, F_OK));
}

static char metadata_path[600];

static void tick_metadata(unsigned int n)
{
	if (n == 2)
		write_file(metadata_path, "/* CTF 1.8 */\ntrace { major = 1; };\n");
	else if (n == 3)
		tr_request_stop();
}

static void test_metadata(void)
{
	static const char text[] = "/* CTF 1.8 */\ntypealias integer { size = 8; } := uint8_t;\n";
	char path[600], buf[256];
	FILE *f;
	size_t n;

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_stop;
	snprintf(metadata_path, sizeof(metadata_path), "%s/metadata", fk.tring);
	write_file(metadata_path, text);
	CHECK(record("") == 0);
	snprintf(path, sizeof(path), "%s/kernel/metadata", fk.out);
	f = fopen(path, "r");
	CHECK(f != NULL);
	n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	if (f)
		fclose(f);
	CHECK(n == strlen(text) && !memcmp(buf, text, n));
	CHECK(out_size("kernel/.metadata.tmp") == -1);
	CHECK(trace_dir_clean());

	/* Missing: a warning, and the recording goes on. */
	unlink(metadata_path);
	CHECK(record("--force") == 0);
	CHECK(err_has("metadata does not exist"));
	CHECK(out_size("kernel/metadata") == -1);

	/* Appearing while recording: copied at the end. */
	fk.tick = tick_metadata;
	CHECK(record("--force") == 0);
	CHECK(out_size("kernel/metadata") == 36);
}

static void test_options(void)
{
	fake_setup(1, 4096, 8, false);
	CHECK(run("--bogus") == TR_EXIT_USAGE);
	CHECK(run("-s 3") == TR_EXIT_USAGE);
	CHECK(run("-b 0") == TR_EXIT_USAGE);
	CHECK(run("-b 4X") == TR_EXIT_USAGE);
	CHECK(run("-b 5G") == TR_EXIT_USAGE);
	CHECK(run("-s 32M") == TR_EXIT_USAGE);
	CHECK(tr_parse_size_kb("4M", 1, 4L << 20) == 4096);
	CHECK(tr_parse_size_kb("4G", 1, 4L << 20) == 4L << 20);
	CHECK(tr_parse_size_kb("64KiB", 1, 100) == 64);
	CHECK(tr_parse_size_kb("2MB", 1, 4096) == 2048);
	CHECK(tr_parse_size_kb("-1", 1, 100) == -1);
	/* A bad URL is said as such, before debugfs is looked at. */
	CHECK(run("--debugfs /nonexistent -o net://h:0") == TR_EXIT_USAGE);
	CHECK(err_has("bad relay URL 'net://h:0'"));
	CHECK(!err_has("debugfs"));
	CHECK(run("--clock tsc") == TR_EXIT_USAGE);
	CHECK(run("-w 0") == TR_EXIT_USAGE);
	/* After the options, a COMMAND; with --list, one GLOB only. */
	CHECK(run("--list a extra") == TR_EXIT_USAGE);
	CHECK(err_has("unexpected argument 'a'"));
	/*
	 * A usage error exits 125 when the line names a COMMAND, as getopt
	 * reads it, and 1 when not, whether "--" appears or not.
	 */
	CHECK(run("--bogus -- true") == TR_EXIT_COMMAND_FAILED);
	CHECK(run("--bogus true") == TR_EXIT_COMMAND_FAILED);
	CHECK(run("-d x true") == TR_EXIT_COMMAND_FAILED);
	CHECK(run("-qd x true") == TR_EXIT_COMMAND_FAILED);
	CHECK(run("--dur=x true") == TR_EXIT_COMMAND_FAILED);
	CHECK(run("-o -- -d x") == TR_EXIT_USAGE);
	CHECK(run("--output -- -d x") == TR_EXIT_USAGE);
	CHECK(run("-e -- --filter -- -d x") == TR_EXIT_USAGE);
	CHECK(run("-l a -- b") == TR_EXIT_USAGE);
}

/* Does @help list @key, as "  KEY " in the summary's keys? */
static bool help_lists(const char *help, const char *key, size_t len)
{
	char want[128];

	snprintf(want, sizeof(want), "  %.*s ", (int)len, key);
	return strstr(help, want) != NULL;
}

/*
 * --help lists every number a summary file holds, per CPU and in total,
 * and how a run can end: they come from the same tables.
 */
static void test_help_lists_summary(void)
{
	char path[400], line[256], *help = NULL, *eq;
	unsigned int cpu_keys = 0, total_keys = 0;
	size_t len = 0;
	FILE *f, *m;

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_stop;
	CHECK(record("") == 0);
	m = open_memstream(&help, &len);
	tr_usage(m);
	fclose(m);
	snprintf(path, sizeof(path), "%s/.tring-record.summary", fk.out);
	f = fopen(path, "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		eq = strchr(line, '=');
		if (!eq)
			continue;
		if (!strncmp(line, "cpu0.", 5)) {
			CHECK(help_lists(help, line + 5, eq - line - 5));
			cpu_keys++;
		} else if (!strncmp(line, "total.", 6)) {
			CHECK(help_lists(help, line + 6, eq - line - 6));
			total_keys++;
		}
	}
	if (f)
		fclose(f);
	CHECK(cpu_keys == 19 && total_keys == 15);
	CHECK(strstr(help, "stop=signal|duration|output_error|stream_error|hangup|command|max_size\n"));
	CHECK(strstr(help, "drain=skipped|complete|timeout|aborted\n"));
	CHECK(strstr(help, "statedump=skipped|done|unsupported|failed\n"));
	CHECK(strstr(help, "per CPU only:\n\t\t  flush_pos "));
	free(help);
}

/*
 * The man page made by man.awk keeps each SYNOPSIS form on a line of
 * its own (they were filled into one paragraph).
 */
static void test_man_synopsis(void)
{
	char help[400], man[400], cmd[1200], line[512];
	bool in_syn = false, want_br = false;
	unsigned int forms = 0;
	FILE *f;

	fake_setup(1, 4096, 8, false);
	snprintf(help, sizeof(help), "%s/help.txt", fk.root);
	snprintf(man, sizeof(man), "%s/tring-record.1", fk.root);
	f = fopen(help, "w");
	tr_usage(f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "awk -f %s/man.awk <%s >%s", TR_SRC_DIR,
		 help, man);
	CHECK(!system(cmd));
	f = fopen(man, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, ".SH", 3))
			in_syn = strstr(line, "SYNOPSIS") != NULL;
		if (!in_syn || !strncmp(line, ".SH", 3))
			continue;
		if (want_br)
			CHECK(!strcmp(line, ".br\n"));
		want_br = !strncmp(line, "tring\\-record", 13);
		forms += want_br;
	}
	if (f)
		fclose(f);
	CHECK(forms >= 5);
}

const struct test setup_tests[] = {
	{ "man_synopsis", test_man_synopsis },
	{ "knobs", test_knobs },
	{ "knob_busy", test_knob_busy },
	{ "nice", test_nice },
	{ "environment", test_environment },
	{ "instance", test_instance },
	{ "cpu_list", test_cpu_list },
	{ "output_dir", test_output_dir },
	{ "metadata", test_metadata },
	{ "options", test_options },
	{ "help_lists_summary", test_help_lists_summary },
	{ NULL, NULL },
};
