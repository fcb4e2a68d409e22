// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's unit test: the output layout (the trace in DIR/kernel,
 * as an LTTng session directory holds it; the summary in DIR) and the
 * statedump asked of the kernel at the start.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_record.h"

/* The names in @dir, sorted and space separated, dot files too. */
static void list_dir(const char *dir, char *buf, size_t size)
{
	char cmd[600];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' 2>/dev/null | sort | tr '\\n' ' '",
		 dir);
	buf[0] = '\0';
	p = popen(cmd, "r");
	if (!p)
		return;
	n = fread(buf, 1, size - 1, p);
	buf[n] = '\0';
	pclose(p);
}

static void tick_data(unsigned int n)
{
	if (n == 1) {
		produce(0, 2, 3);
		produce(1, 1, 2);
	} else {
		tr_request_stop();
	}
}

static void test_layout(void)
{
	char dir[400], names[512];
	uint64_t ev;

	fake_setup(2, 4096, 8, false);
	write_file(fk.statedump, "");
	snprintf(dir, sizeof(dir), "%s/metadata", fk.tring);
	write_file(dir, "/* CTF 1.8 */\n");
	fk.tick = tick_data;
	CHECK(record("") == 0);
	list_dir(fk.out, names, sizeof(names));
	CHECK(!strcmp(names, ".tring-record.summary kernel "));
	snprintf(dir, sizeof(dir), "%s/kernel", fk.out);
	list_dir(dir, names, sizeof(names));
	CHECK(!strcmp(names, "metadata stream_0 stream_1 "));
	CHECK(stream_valid(0, 0, 2, &ev) && ev == 6);
	CHECK(stream_valid(1, 0, 1, &ev) && ev == 2);
	CHECK(trace_dir_clean());
	CHECK(sum("total.events") == 8);
}

/* A trace an older tring-record wrote to DIR itself, flat. */
static void flat_trace(void)
{
	static const char *const names[] = {
		"metadata", "stream_0", "stream_3", ".tring-record.summary",
	};
	char path[600];
	unsigned int i;

	mkdirs("%s", fk.out);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", fk.out, names[i]);
		write_file(path, "old");
	}
}

static void test_flat_layout(void)
{
	char names[512];

	fake_setup(1, 4096, 8, false);
	fk.tick = tick_stop;
	flat_trace();
	/* Refused like any non-empty directory... */
	CHECK(record("") == TR_EXIT_USAGE);
	CHECK(err_has("is not empty (use --force"));
	CHECK(out_size("stream_3") == 3 && out_size("metadata") == 3);
	CHECK(out_size("kernel") == -1);
	/* ...and replaced with --force: it would be a second, stale trace. */
	CHECK(record("--force") == 0);
	list_dir(fk.out, names, sizeof(names));
	CHECK(!strcmp(names, ".tring-record.summary kernel "));
	CHECK(out_size("kernel/stream_0") == 0);
	CHECK(sum_is("statedump", "done"));
}

static void test_layout_cleanup(void)
{
	char names[512], path[600];

	/* A DIR this run made goes, with DIR/kernel. */
	fake_setup(1, 4096, 8, false);
	ring(0)->busy = true;
	CHECK(record("") == TR_EXIT_SETUP);
	CHECK(out_size("") == -1);
	CHECK(fk.statedumps == 0);

	/* An empty DIR that was there stays; DIR/kernel, made here, goes. */
	mkdirs("%s", fk.out);
	CHECK(record("") == TR_EXIT_SETUP);
	CHECK(out_size("") >= 0 && out_size("kernel") == -1);

	/* A DIR/kernel that was there stays, emptied of this run's files. */
	mkdirs("%s/kernel", fk.out);
	snprintf(path, sizeof(path), "%s/kernel/notes", fk.out);
	write_file(path, "mine");
	ring(0)->busy = false;
	ring(1)->busy = true;
	fk.nrings = 2;
	fake_tree(fk.tring, 2, false);
	ring(1)->cpu = 1;
	CHECK(record("--force") == TR_EXIT_SETUP);
	snprintf(path, sizeof(path), "%s/kernel", fk.out);
	list_dir(path, names, sizeof(names));
	CHECK(!strcmp(names, "notes "));

	/* DIR/kernel is a file. */
	unlink(path);
	snprintf(path, sizeof(path), "%s/kernel/notes", fk.out);
	unlink(path);
	snprintf(path, sizeof(path), "%s/kernel", fk.out);
	rmdir(path);
	write_file(path, "x");
	CHECK(record("--force") == TR_EXIT_USAGE);
	CHECK(err_has("/kernel exists and is not a directory"));
	CHECK(out_size("kernel") == 1);
}

static void test_statedump(void)
{
	const char *o0, *o1, *sd, *g;
	cpu_set_t before, after;

	fake_setup(2, 4096, 8, false);
	fk.tick = tick_data;
	CHECK(record("") == 0);
	CHECK(fk.statedumps == 1);
	o0 = strstr(fk.events, "open 0\n");
	o1 = strstr(fk.events, "open 1\n");
	sd = strstr(fk.events, "statedump\n");
	g = strstr(fk.events, "get ");
	/* Once, after every stream is open, before anything is read. */
	CHECK(o0 && o1 && sd && g && o0 < sd && o1 < sd && sd < g);
	CHECK(!strstr(sd + 1, "statedump\n"));
	CHECK(sum_is("statedump", "done"));
	CHECK(!err_has("statedump"));

	/* With --cpus the writer is pinned for the write only. */
	CHECK(!sched_getaffinity(0, sizeof(before), &before));
	fk.events[0] = '\0';
	CHECK(record("--force -c 1") == 0);
	CHECK(strstr(fk.events, "statedump\n"));
	CHECK(!sched_getaffinity(0, sizeof(after), &after));
	CHECK(CPU_EQUAL(&before, &after));
}

static void test_no_statedump(void)
{
	char dir[600];

	fake_setup(2, 4096, 8, false);
	fk.tick = tick_stop;
	CHECK(record("--no-statedump") == 0);
	CHECK(fk.statedumps == 0 && !strstr(fk.events, "statedump"));
	CHECK(sum_is("statedump", "skipped"));

	/* An instance: the statedump would go to the default buffer. */
	snprintf(dir, sizeof(dir), "%s/instances/foo", fk.tring);
	fake_tree(dir, 2, false);
	CHECK(record("--force --instance foo") == 0);
	CHECK(fk.statedumps == 0);
	CHECK(sum_is("statedump", "skipped"));
	CHECK(!err_has("statedump"));
}

/* Lines of what the last run said that hold @s. */
static unsigned int err_lines(const char *s)
{
	const char *p = fk.err, *nl, *hit;
	unsigned int n = 0;

	while ((hit = strstr(p, s))) {
		n++;
		nl = strchr(hit, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}

static void test_statedump_errors(void)
{
	uint64_t ev;

	/* An older module: no statedump file. Warned once, recorded. */
	fake_setup(2, 4096, 8, false);
	fk.tick = tick_data;
	unlink(fk.statedump);
	CHECK(record("") == 0);
	CHECK(fk.statedumps == 0);
	CHECK(err_lines("statedump") == 1);
	CHECK(err_has("warning: ") && err_has("/tring/statedump does not exist"));
	CHECK(sum_is("statedump", "unsupported"));
	CHECK(stream_valid(0, 0, 2, &ev) && ev == 6);
	CHECK(sum("exit_status") == 0);

	/* The write fails: warned with the errno text, recorded. */
	fake_setup(2, 4096, 8, false);
	fk.tick = tick_data;
	fk.statedump_err = EIO;
	CHECK(record("") == 0);
	CHECK(fk.statedumps == 1);
	CHECK(err_lines("statedump") == 1);
	CHECK(err_has("warning: statedump failed") &&
	      err_has(strerror(EIO)));
	CHECK(sum_is("statedump", "failed"));
	CHECK(stream_matches(0) && stream_matches(1));
	CHECK(stream_valid(0, 0, 2, &ev) && ev == 6);
	CHECK(sum("exit_status") == 0);
}

static char victim[400];

/* While recording, the owner of DIR plants links to a file of root's. */
static void tick_plant(unsigned int n)
{
	char path[600];

	if (n != 1)
		return;
	snprintf(path, sizeof(path), "%s/kernel/.metadata.tmp", fk.out);
	CHECK(!symlink(victim, path));
	snprintf(path, sizeof(path), "%s/.tring-record.summary", fk.out);
	CHECK(!symlink(victim, path));
	tr_request_stop();
}

/* Mode @mode, owned by @uid:@gid? */
static bool owned(const char *name, unsigned int mode, uid_t uid, gid_t gid)
{
	char path[600];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", fk.out, name);
	return !lstat(path, &st) && (!mode || (st.st_mode & 07777) == mode) &&
	       st.st_uid == uid && st.st_gid == gid;
}

/*
 * Every output file is 0600 (the metadata was 0644, the summary 0666
 * less the umask), made with O_EXCL | O_NOFOLLOW in the directory: a
 * symbolic link planted in DIR is not followed. Through sudo the files
 * and directories made go to SUDO_UID:SUDO_GID.
 */
static void test_output_files(void)
{
	char meta[400], text[64];

	fake_setup(1, 4096, 8, false);
	snprintf(meta, sizeof(meta), "%s/metadata", fk.tring);
	write_file(meta, "/* CTF 1.8 */\n");
	snprintf(victim, sizeof(victim), "%s/victim", fk.root);
	write_file(victim, "root's\n");
	fk.tick = tick_plant;
	setenv("SUDO_UID", "4242", 1);
	setenv("SUDO_GID", "4343", 1);
	CHECK(record("") == 0);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	CHECK(!tr_read_small_file(victim, text, sizeof(text)));
	CHECK(!strcmp(text, "root's\n"));
	CHECK(owned("kernel/stream_0", 0600, 4242, 4343));
	CHECK(owned("kernel/metadata", 0600, 4242, 4343));
	CHECK(owned(".tring-record.summary", 0600, 4242, 4343));
	CHECK(owned("", 0, 4242, 4343) && owned("kernel", 0, 4242, 4343));
	CHECK(out_size("kernel/metadata") == 14);
	CHECK(sum("exit_status") == 0);

	/* Without sudo: root's, 0600 too, whatever the umask. */
	fk.tick = tick_stop;
	CHECK(record("--force") == 0);
	CHECK(owned("kernel/metadata", 0600, 0, 0));
	CHECK(owned(".tring-record.summary", 0600, 0, 0));
}

static void tick_long(unsigned int n)
{
	if (n <= 10)
		produce(0, 2, 5);
	else
		tr_request_stop();
}

/* The packets of DIR/chunk_<n>/kernel/stream_0: whole, in sequence. */
static long chunk_packets(unsigned int n, uint64_t *first)
{
	char path[600];
	struct tring_packet_header h;
	long k = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/chunk_%u/kernel/stream_0", fk.out, n);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fread(&h, sizeof(h), 1, f) == 1) {
		if (!k)
			*first = h.packet_seq_num;
		if (h.magic != TRING_PACKET_MAGIC ||
		    h.packet_seq_num != *first + k ||
		    fseek(f, 4096 - sizeof(h), SEEK_CUR))
			k = -100;
		k++;
	}
	fclose(f);
	return k;
}

/*
 * --rotate SIZE: numbered chunks, each a trace (its metadata, whole
 * packets continuing the sequence); with --max-size, only the last
 * chunks that fit are kept. --rotate SECONDS, and --max-size alone
 * (it stops the recording).
 */
static void test_rotate(void)
{
	char meta[400];
	uint64_t first = 0, next = 0;
	unsigned int n;
	long k;

	fake_setup(1, 4096, 8, false);
	snprintf(meta, sizeof(meta), "%s/metadata", fk.tring);
	write_file(meta, "/* CTF 1.8 */\n");
	fk.tick = tick_long;
	CHECK(record("-w 1 --rotate 16K") == 0);
	CHECK(sum("chunks") == 5 && sum("chunks_removed") == 0);
	for (n = 0; n < 5; n++) {
		k = chunk_packets(n, &first);
		CHECK(k == 4 && first == next);
		next = first + k;
		snprintf(meta, sizeof(meta), "chunk_%u/kernel/metadata", n);
		CHECK(out_size(meta) == 14);
	}
	CHECK(out_size("kernel") == -1 && out_size("chunk_5") == -1);

	/* --force: the chunks of an earlier run go too. */
	fk.tick = tick_stop;
	CHECK(record("--force --rotate 16K") == 0);
	CHECK(sum("chunks") == 1 && out_size("chunk_1") == -1);

	/* Keep the last 40 KiB: chunks 0 to 2 go. */
	fake_setup(1, 4096, 8, false);
	fk.tick = tick_long;
	CHECK(record("-w 1 --rotate 16K --max-size 40K") == 0);
	CHECK(sum("chunks") == 5 && sum("chunks_removed") == 3);
	CHECK(out_size("chunk_2") == -1 && out_size("chunk_3") > 0);
	CHECK(chunk_packets(3, &first) == 4 && first == 12);

	/* Every 2 s of the fake clock (a poll is 1 ms: none rotate). */
	fake_setup(1, 4096, 8, false);
	fk.tick = tick_long;
	CHECK(record("-w 1 --rotate 2s") == 0);
	CHECK(sum("chunks") == 1 && chunk_packets(0, &first) == 20);

	/* --max-size alone stops the recording; the drain still saves. */
	fake_setup(1, 4096, 8, false);
	fk.tick = tick_long;
	CHECK(record("-w 1 --max-size 24K") == 0);
	CHECK(sum_is("stop", "max_size"));
	CHECK(sum("cpu0.subbufs") >= 6 && sum("cpu0.subbufs") < 20);

	CHECK(record("--rotate 10x") == TR_EXIT_USAGE);
	CHECK(record("--rotate 0") == TR_EXIT_USAGE);
	CHECK(record("--max-size 1Q") == TR_EXIT_USAGE);
}

#define STR_(x)	#x
#define STR(x)	STR_(x)

/* The module's metadata for the fake's packets (kernel/trace/tring_ctf.c). */
static const char ctf_meta[] =
	"/* CTF 1.8 */\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = " STR(TRING_ID_BITS) "; align = 1; signed = false; } := tring_id_t;\n"
	"trace {\n\tmajor = 1;\n\tminor = 8;\n"
	"\tuuid = \"2a6422d0-6cee-11e0-8c08-cb07d7b3a564\";\n"
	"\tbyte_order = le;\n"
	"\tpacket.header := struct { uint32_t magic; uint32_t stream_id; };\n};\n"
	"clock {\n\tname = \"monotonic\";\n\tfreq = 1000000000;\n"
	"\toffset_s = 1700000000;\n};\n"
	"typealias integer { size = " STR(TRING_TS_BITS) "; align = 1; signed = false; map = clock.monotonic.value; } := tring_ts_clock_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;\n"
	"stream {\n\tid = 0;\n"
	"\tevent.header := struct { enum : tring_id_t { compact = 0 ... " STR(TRING_ID_COMPACT_LAST) " } id;"
	" variant <id> { struct { tring_ts_clock_t timestamp; } compact; } v; } align(32);\n"
	"\tpacket.context := struct { uint64_clock_t timestamp_begin;"
	" uint64_clock_t timestamp_end; uint64_t content_size;"
	" uint64_t packet_size; uint64_t packet_seq_num;"
	" uint64_t events_discarded; uint32_t cpu_id; uint32_t events_count; };\n"
	"};\n"
	"event {\n\tname = \"x\";\n\tid = 2;\n\tstream_id = 0;\n"
	"\tfields := struct { uint32_t v; };\n};\n";

static void tick_empty_packets(unsigned int n)
{
	if (n <= 10) {
		produce(0, 2, 0);
		produce(1, 1, 0);
	} else {
		tr_request_stop();
	}
}

/* Packets babeltrace2 reads in @what (a path under the output). */
static int bt2_packets(const char *what)
{
	char cmd[800], line[256];
	int n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "babeltrace2 '%s/%s' -c sink.text.details 2>/dev/null || echo FAILED",
		 fk.out, what);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		if (strstr(line, "FAILED"))
			n = -1000;
		n += strstr(line, "Packet beginning") != NULL;
	}
	if (p)
		pclose(p);
	return n;
}

/*
 * babeltrace2 reads each chunk of --rotate as a trace of its own, and
 * DIR as one trace made of all of them (skipped without babeltrace2).
 */
static void test_rotate_babeltrace2(void)
{
	char meta[400];

	if (system("command -v babeltrace2 >/dev/null 2>&1")) {
		printf("# rotate_babeltrace2: no babeltrace2, skipped\n");
		return;
	}
	fake_setup(2, 4096, 8, false);
	snprintf(meta, sizeof(meta), "%s/metadata", fk.tring);
	write_file(meta, ctf_meta);
	fk.tick = tick_empty_packets;
	CHECK(record("-w 1 --rotate 24K") == 0);
	CHECK(sum("chunks") == 5);
	CHECK(bt2_packets("chunk_0") == 6);
	CHECK(bt2_packets("chunk_4") == 6);
	CHECK(bt2_packets("") == 30);
}

const struct test layout_tests[] = {
	{ "rotate_babeltrace2", test_rotate_babeltrace2 },
	{ "rotate", test_rotate },
	{ "output_files", test_output_files },
	{ "layout", test_layout },
	{ "flat_layout", test_flat_layout },
	{ "layout_cleanup", test_layout_cleanup },
	{ "statedump", test_statedump },
	{ "no_statedump", test_no_statedump },
	{ "statedump_errors", test_statedump_errors },
	{ NULL, NULL },
};
