// SPDX-License-Identifier: GPL-2.0
/*
 * tring_insn: a QEMU TCG plugin that counts the instructions each vCPU
 * executes, kernel (addresses in the upper half) and user apart, and
 * writes every vCPU's counts each time a guest executes the mark:
 *
 *	nopw 0x474e5254(%rax,%rax,1)	(66 0f 1f 84 00 54 52 4e 47)
 *
 * a NOP anywhere else. A line per mark, in the order the marks ran:
 *
 *	mark SEQ VCPU TAG K0 U0 K1 U1 ...
 *
 * (SEQ from 0, VCPU the one that ran it, TAG the value of %rax when it
 * ran (the workload's name for what it measures: tring_insn_mark.h),
 * Kn/Un vCPU n's kernel and user instructions so far, the mark itself
 * counted). A workload that runs the mark before and after what it
 * measures gets that part's exact instruction count on every vCPU from
 * two lines.
 *
 * usage: qemu-system-x86_64 ... -plugin PATH/libtring_insn.so,out=FILE[,prof=PFILE]
 *
 * With prof=PFILE it also profiles: between a mark tagged
 * TRING_INSN_PROF_ON and one tagged TRING_INSN_PROF_OFF
 * (tring_insn_mark.h), every translation block executed counts its
 * instructions (all of them: a block left early by an exception or an
 * interrupt is counted whole). At exit PFILE gets a line
 *
 *	VADDR INSNS EXECUTIONS
 *
 * per block that ran while on (a block translated again is a line of
 * its own): tools/testing/insn/profile.py names the functions.
 *
 * Concurrency: the counters are QEMU's per-vCPU scoreboard, each slot
 * written inline by its own vCPU's thread only; a mark reads the other
 * vCPUs' slots while they may run (a count read that way is as of some
 * instant during the read). Lines are written under out_lock. rax_reg
 * is written once per vCPU at its initialisation (all vCPUs of one
 * target share the handle) and read at marks. The profile: prof_on is
 * switched by marks, read by every vCPU at each block (relaxed atomics:
 * a block running as it switches counts or not); a block's count is
 * added to atomically by any vCPU; blocks are appended under prof_lock
 * at translation and read at exit, when no vCPU runs.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <qemu-plugin.h>

#include "tring_insn_mark.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static const unsigned char mark_insn[] = {
	0x66, 0x0f, 0x1f, 0x84, 0x00, 0x54, 0x52, 0x4e, 0x47
};

struct counts {
	uint64_t kernel;
	uint64_t user;
};

static struct qemu_plugin_scoreboard *score;
static qemu_plugin_u64 kernel_insns, user_insns;
static FILE *out;
static GMutex out_lock;
static uint64_t seq;
static struct qemu_plugin_register *rax_reg;

/* One translation of a block, for the profile. */
struct prof_tb {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t runs;
};

static FILE *prof_out;
static GPtrArray *prof_tbs;
static GMutex prof_lock;
static int prof_on;

/* x86-64: the kernel's half of the address space. */
static bool is_kernel(uint64_t vaddr)
{
	return vaddr >= 0xffff800000000000ULL;
}

/* The mark's tag: %rax, little-endian; 0 if it cannot be read. */
static uint64_t mark_tag(void)
{
	GByteArray *buf;
	uint64_t tag = 0;
	int len;

	if (!rax_reg)
		return 0;
	buf = g_byte_array_new();
	len = qemu_plugin_read_register(rax_reg, buf);
	if (len > 0 && (size_t)len <= sizeof(tag))
		for (int i = len - 1; i >= 0; i--)
			tag = tag << 8 | buf->data[i];
	g_byte_array_free(buf, TRUE);
	return tag;
}

static void on_mark(unsigned int vcpu, void *udata)
{
	int i, n = qemu_plugin_num_vcpus();
	uint64_t tag = mark_tag();

	(void)udata;
	if (tag == TRING_INSN_PROF_ON || tag == TRING_INSN_PROF_OFF)
		__atomic_store_n(&prof_on, tag == TRING_INSN_PROF_ON,
				 __ATOMIC_RELAXED);
	g_mutex_lock(&out_lock);
	fprintf(out, "mark %" PRIu64 " %u %" PRIu64, seq++, vcpu, tag);
	for (i = 0; i < n; i++)
		fprintf(out, " %" PRIu64 " %" PRIu64,
			qemu_plugin_u64_get(kernel_insns, i),
			qemu_plugin_u64_get(user_insns, i));
	fputc('\n', out);
	fflush(out);
	g_mutex_unlock(&out_lock);
}

static bool is_mark(const struct qemu_plugin_insn *insn)
{
	unsigned char b[sizeof(mark_insn)];

	return qemu_plugin_insn_size(insn) == sizeof(mark_insn) &&
	       qemu_plugin_insn_data(insn, b, sizeof(b)) == sizeof(b) &&
	       !memcmp(b, mark_insn, sizeof(b));
}

static void on_tb_exec(unsigned int vcpu, void *udata)
{
	struct prof_tb *t = udata;

	(void)vcpu;
	if (__atomic_load_n(&prof_on, __ATOMIC_RELAXED))
		__atomic_fetch_add(&t->runs, 1, __ATOMIC_RELAXED);
}

/* Profiling: a counter for this translation of @tb. */
static void prof_translate(struct qemu_plugin_tb *tb)
{
	struct prof_tb *t = g_new0(struct prof_tb, 1);

	t->vaddr = qemu_plugin_tb_vaddr(tb);
	t->insns = qemu_plugin_tb_n_insns(tb);
	g_mutex_lock(&prof_lock);
	g_ptr_array_add(prof_tbs, t);
	g_mutex_unlock(&prof_lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb_exec,
					     QEMU_PLUGIN_CB_NO_REGS, t);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	if (prof_out)
		prof_translate(tb);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		bool k = is_kernel(qemu_plugin_insn_vaddr(insn));

		qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn,
			QEMU_PLUGIN_INLINE_ADD_U64, k ? kernel_insns : user_insns, 1);
		if (is_mark(insn))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
				QEMU_PLUGIN_CB_R_REGS, NULL);
	}
}

/* Finds %rax among the vCPU's registers (the gdbstub's names). */
static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	GArray *regs = qemu_plugin_get_registers();
	guint i;

	(void)id;
	(void)vcpu;
	for (i = 0; regs && i < regs->len; i++) {
		qemu_plugin_reg_descriptor *d =
			&g_array_index(regs, qemu_plugin_reg_descriptor, i);

		if (!strcmp(d->name, "rax"))
			rax_reg = d->handle;
	}
	if (regs)
		g_array_free(regs, TRUE);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	fclose(out);
	if (prof_out) {
		for (guint i = 0; i < prof_tbs->len; i++) {
			struct prof_tb *t = g_ptr_array_index(prof_tbs, i);

			if (t->runs)
				fprintf(prof_out, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
					t->vaddr, t->insns, t->runs);
		}
		fclose(prof_out);
		g_ptr_array_free(prof_tbs, TRUE);
	}
	qemu_plugin_scoreboard_free(score);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL, *prof = NULL;
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
		else if (!strncmp(argv[i], "prof=", 5))
			prof = argv[i] + 5;
	}
	if (!path) {
		fprintf(stderr, "tring_insn: out=FILE is needed\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	if (prof) {
		prof_out = fopen(prof, "w");
		if (!prof_out) {
			perror(prof);
			return -1;
		}
		prof_tbs = g_ptr_array_new_with_free_func(g_free);
	}
	score = qemu_plugin_scoreboard_new(sizeof(struct counts));
	kernel_insns = qemu_plugin_scoreboard_u64_in_struct(score, struct counts, kernel);
	user_insns = qemu_plugin_scoreboard_u64_in_struct(score, struct counts, user);
	qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
