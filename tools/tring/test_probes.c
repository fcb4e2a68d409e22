// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record's unit tests: --probe (probes.c) against a fake
 * kprobe_events and uprobe_events, and a symbol's offset in an ELF file
 * (elf.c) on this test's own binary. A definition's blanks are tabs
 * here: run() splits its arguments at spaces.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_record.h"

/* The fake kernel, with empty kprobe_events and uprobe_events. */
static void fake_probes(void)
{
	char path[600];

	fake_setup(1, 4096, 8, false);
	mkdirs("%s/events/sched/sched_switch", fk.tring);
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/enable",
		 fk.tring);
	write_file(path, "0\n");
	snprintf(path, sizeof(path), "%s/kprobe_events", fk.tring);
	write_file(path, "");
	snprintf(path, sizeof(path), "%s/uprobe_events", fk.tring);
	write_file(path, "");
}

static char seen_enable[8], seen_filter[256], seen_list[512];

static void tick_probe(unsigned int n)
{
	if (n != 1)
		return;
	strcpy(seen_enable, tring_first_line("events/tp/one/enable"));
	strcpy(seen_filter, tring_first_line("events/tp/one/filter"));
	strcpy(seen_list, tring_first_line("kprobe_events"));
	tr_request_stop();
}

/*
 * Made before the events are chosen, on and filtered while recording,
 * removed at exit; also when the start fails after it was made.
 */
static void test_probe_make_remove(void)
{
	char path[600], args[600], out[8192];

	fake_probes();
	fk.tick = tick_probe;
	CHECK(record("--probe p:tp/one\tdo_sys_open\ta=%di --filter a==1") == 0);
	CHECK(!strcmp(seen_enable, "1") && !strcmp(seen_filter, "a==1"));
	CHECK(!strcmp(seen_list, "p:tp/one do_sys_open\ta=%di"));
	CHECK(!strcmp(tring_first_line("kprobe_events"), ""));
	CHECK(!strcmp(tring_first_line("events/tp/one/enable"), "0"));
	CHECK(strstr(fk.events, "probe -:tp/one\n"));
	CHECK(err_has("probe tp:one made"));

	/* Unnamed: the name is read back from the listing. */
	fake_probes();
	fk.tick = tick_stop;
	CHECK(record("--probe r\tvfs_read") == 0);
	CHECK(strstr(fk.events, "probe -:kprobes/p_fake\n"));
	CHECK(!strcmp(tring_first_line("kprobe_events"), ""));

	/* The second refused: the first removed, nothing left on. */
	fake_probes();
	CHECK(record("-e sched --probe p:tp/one\tf --probe p:tp/bad\tg") ==
	      TR_EXIT_USAGE);
	CHECK(err_has("--probe 'p:tp/bad\tg': refused (Invalid argument)"));
	CHECK(strstr(fk.events, "probe -:tp/one\n"));
	CHECK(!strcmp(tring_first_line("kprobe_events"), ""));
	CHECK(!strcmp(tring_first_line("events/sched/sched_switch/enable"), "0"));

	/* --list shows the probes in force. */
	fake_probes();
	snprintf(path, sizeof(path), "%s/kprobe_events", fk.tring);
	write_file(path, "p:a/b vfs_read\n");
	snprintf(args, sizeof(args), "--debugfs %s --list", fk.dbg);
	CHECK(run_stdout(args, out, sizeof(out)) == 0);
	CHECK(strstr(out, "probe: p:a/b vfs_read\n"));

	/* Not a definition. */
	CHECK(record("--probe -:tp/one") == TR_EXIT_USAGE);
	CHECK(record("--probe x") == TR_EXIT_USAGE);
	CHECK(err_has("expected one kprobe_events or uprobe_events line"));
}

/* The offset of this binary's function @fn, from /proc/self/maps. */
static uint64_t mapped_offset(const void *fn)
{
	unsigned long start, end, off, addr = (unsigned long)fn;
	char line[512];
	uint64_t ret = ~0ULL;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &off) == 3 &&
		    addr >= start && addr < end)
			ret = addr - start + off;
	if (f)
		fclose(f);
	return ret;
}

/* A symbol's offset, as the kernel maps the file: the one it runs at. */
static void test_elf_offset(void)
{
	const char *why = NULL;
	char path[600];
	uint64_t off = 0;

	CHECK(!tr_elf_offset("/proc/self/exe", "tr_elf_offset", &off, &why));
	CHECK(off == mapped_offset(tr_elf_offset) && off);
	CHECK(tr_elf_offset("/proc/self/exe", "no_such_symbol_at_all", &off,
			    &why) == -ENOENT);
	CHECK(!strcmp(why, "no such symbol in the file"));
	snprintf(path, sizeof(path), "%s/not-elf", fk.root);
	write_file(path, "#!/bin/sh\necho hello, this is not an ELF file\n");
	CHECK(tr_elf_offset(path, "main", &off, &why) == -EINVAL);
	CHECK(!strcmp(why, "not a 64-bit little-endian ELF file"));
	CHECK(tr_elf_offset("/nonexistent/x", "main", &off, &why) == -ENOENT);
}

/* PATH:SYMBOL made PATH:0xOFFSET, written to uprobe_events. */
static void test_probe_uprobe_symbol(void)
{
	char want[256];

	fake_probes();
	fk.tick = tick_stop;
	CHECK(record("--probe p:up/fn\t/proc/self/exe:tr_elf_offset+4\ta=%di") == 0);
	snprintf(want, sizeof(want),
		 "probe p:up/fn\t/proc/self/exe:0x%llx\ta=%%di\n",
		 (unsigned long long)mapped_offset(tr_elf_offset) + 4);
	CHECK(strstr(fk.events, want));
	CHECK(strstr(fk.events, "probe -:up/fn\n"));
	CHECK(!strcmp(tring_first_line("uprobe_events"), ""));

	fake_probes();
	CHECK(record("--probe p:up/fn\t/proc/self/exe:no_such_symbol_at_all") ==
	      TR_EXIT_USAGE);
	CHECK(err_has("no_such_symbol_at_all: no such symbol in the file"));
	CHECK(!strstr(fk.events, "probe p:up"));
}

static char seen_funcs[256], seen_fn_enable[8];

static void tick_function(unsigned int n)
{
	if (n != 1)
		return;
	strcpy(seen_funcs, tring_first_line("functions"));
	strcpy(seen_fn_enable, tring_first_line("events/ftrace/function/enable"));
	tr_request_stop();
}

/* --function: the patterns in force while recording, the old set back. */
static void test_function(void)
{
	char path[600];

	fake_probes();
	mkdirs("%s/events/ftrace/function", fk.tring);
	snprintf(path, sizeof(path), "%s/events/ftrace/function/enable",
		 fk.tring);
	write_file(path, "0\n");
	snprintf(path, sizeof(path), "%s/functions", fk.tring);
	write_file(path, "old_fn\nother_fn\n");
	fk.tick = tick_function;
	CHECK(record("--function vfs_* --function !vfs_readv") == 0);
	CHECK(!strcmp(seen_funcs, "vfs_*") && !strcmp(seen_fn_enable, "1"));
	CHECK(!strcmp(tring_first_line("functions"), "old_fn"));
	CHECK(!strcmp(tring_first_line("events/ftrace/function/enable"), "0"));

	CHECK(record("--function a\tb") == TR_EXIT_USAGE);
	CHECK(err_has("expected one glob of function names"));
}

/* -C and --callstack: the list in force while recording, the old back. */
static void test_context(void)
{
	char path[600];

	fake_probes();
	snprintf(path, sizeof(path), "%s/context", fk.tring);
	write_file(path, "pid\n");
	tring_capture_at_start("context");
	CHECK(record("-C tid,procname --callstack both -C perf:cpu:cpu-clock") == 0);
	CHECK(!strcmp(tring_captured,
		      "tid,procname,callstack-kernel,callstack-user,perf:cpu:cpu-clock"));
	CHECK(!strcmp(tring_first_line("context"), "pid"));
	snprintf(path, sizeof(path), "%s/kallsyms", fk.out);
	CHECK(!access(path, F_OK));
	snprintf(path, sizeof(path), "%s/maps", fk.out);
	CHECK(!access(path, F_OK));

	/* Without -C the list is left alone, and said to be there. */
	CHECK(record("--force") == 0);
	CHECK(!strcmp(tring_first_line("context"), "pid"));
	CHECK(err_has("every event carries contexts (pid first"));

	CHECK(record("-C a\tb") == TR_EXIT_USAGE);
	CHECK(err_has("expected NAME[,NAME...]"));
	CHECK(record("-C a,,b") == TR_EXIT_USAGE);
	CHECK(record("--callstack sideways") == TR_EXIT_USAGE);
	CHECK(err_has("expected kernel, user or both"));
}

const struct test probes_tests[] = {
	{ "context", test_context },
	{ "function", test_function },
	{ "probe_make_remove", test_probe_make_remove },
	{ "elf_offset", test_elf_offset },
	{ "probe_uprobe_symbol", test_probe_uprobe_symbol },
	{ NULL },
};
