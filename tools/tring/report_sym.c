// SPDX-License-Identifier: GPL-2.0
/*
 * tring-report: names for stack addresses.
 *
 * Kernel addresses: DIR/kallsyms, the text symbols tring-record wrote at
 * the end of the recording, loaded once and searched by bisection (its
 * size is the kernel's symbol table's, whatever the trace's length).
 * User addresses: DIR/maps ("PID START END OFFSET PATH", the executable
 * file mappings of every process at the start and the end of the
 * recording) gives the file and its offset; the file's symbol table
 * (.symtab, else .dynsym), read with pread() in fixed-size pieces, the
 * function holding it. 64-bit little-endian ELF only.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

#define SYMS_BATCH	256

/* Append symbol @name at @addr to @s's arrays, growing them. */
static int add_ksym(struct rp_syms *s, uint64_t addr, const char *name,
		    size_t *cap, size_t *ncap, size_t *nlen)
{
	size_t len = strlen(name) + 1;

	if (s->nk == *cap) {
		*cap = *cap ? *cap * 2 : 4096;
		s->kaddr = realloc(s->kaddr, *cap * sizeof(*s->kaddr));
		s->kname = realloc(s->kname, *cap * sizeof(*s->kname));
		if (!s->kaddr || !s->kname)
			return -ENOMEM;
	}
	if (*nlen + len > *ncap) {
		*ncap = (*ncap + len) * 2;
		s->knames = realloc(s->knames, *ncap);
		if (!s->knames)
			return -ENOMEM;
	}
	memcpy(s->knames + *nlen, name, len);
	s->kaddr[s->nk] = addr;
	s->kname[s->nk++] = *nlen;
	*nlen += len;
	return 0;
}

/* Are the symbols in address order? kallsyms is, mostly; sort if not. */
static struct rp_syms *sort_syms;

static int cmp_sym(const void *a, const void *b)
{
	uint64_t x = sort_syms->kaddr[*(const uint32_t *)a];
	uint64_t y = sort_syms->kaddr[*(const uint32_t *)b];

	return x < y ? -1 : x > y;
}

static int sort_ksyms(struct rp_syms *s)
{
	uint32_t *idx = malloc(s->nk * sizeof(*idx));
	uint64_t *a = malloc(s->nk * sizeof(*a));
	uint32_t *n = malloc(s->nk * sizeof(*n));
	size_t i;

	if (!idx || !a || !n) {
		free(idx);
		free(a);
		free(n);
		return -ENOMEM;
	}
	for (i = 0; i < s->nk; i++)
		idx[i] = i;
	sort_syms = s;
	qsort(idx, s->nk, sizeof(*idx), cmp_sym);
	for (i = 0; i < s->nk; i++) {
		a[i] = s->kaddr[idx[i]];
		n[i] = s->kname[idx[i]];
	}
	free(s->kaddr);
	free(s->kname);
	free(idx);
	s->kaddr = a;
	s->kname = n;
	return 0;
}

/**
 * rp_syms_load - load DIR/kallsyms, if there is one
 * @s: the symbols, @s->dir set.
 *
 * Return: 0 (also without the file: kernel frames stay addresses), or
 * -ENOMEM.
 */
int rp_syms_load(struct rp_syms *s)
{
	char path[4200], line[512], name[256], type;
	size_t cap = 0, ncap = 0, nlen = 0;
	unsigned long long addr;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/kallsyms", s->dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    !addr)
			continue;
		ret = add_ksym(s, addr, name, &cap, &ncap, &nlen);
	}
	fclose(f);
	return ret ?: sort_ksyms(s);
}

void rp_syms_free(struct rp_syms *s)
{
	free(s->kaddr);
	free(s->kname);
	free(s->knames);
	s->kaddr = NULL;
	s->kname = NULL;
	s->knames = NULL;
	s->nk = 0;
}

/* A linker's marker (__sched_text_start), not a function. */
static bool is_marker(const char *name)
{
	size_t n = strlen(name);

	return (n > 6 && !strcmp(name + n - 6, "_start")) ||
	       (n > 4 && !strcmp(name + n - 4, "_end"));
}

/**
 * rp_kernel_name - a kernel address's function
 * @s: the symbols.
 * @addr: the address.
 * @off: "function+0xoffset" rather than "function".
 * @out: where the name goes.
 * @size: its size.
 */
void rp_kernel_name(const struct rp_syms *s, uint64_t addr, bool off,
		    char *out, size_t size)
{
	size_t lo = 0, hi = s->nk;

	if (addr == RP_TRUNCATED) {
		snprintf(out, size, "[truncated]");
		return;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->kaddr[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* Of symbols at one address, not a section's start marker. */
	while (lo > 0 && s->kaddr[lo - 1] == s->kaddr[lo] &&
	       is_marker(s->knames + s->kname[lo]))
		lo--;
	if (!s->nk || s->kaddr[lo] > addr)
		snprintf(out, size, "0x%" PRIx64, addr);
	else if (!off)
		snprintf(out, size, "%s", s->knames + s->kname[lo]);
	else
		snprintf(out, size, "%s+0x%" PRIx64, s->knames + s->kname[lo],
			 addr - s->kaddr[lo]);
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len ? 0 : -EINVAL;
}

/* The virtual address of file offset @foff, through its PT_LOAD. */
static int to_vaddr(int fd, const Elf64_Ehdr *eh, uint64_t foff,
		    uint64_t *vaddr)
{
	Elf64_Phdr ph;
	unsigned int i;

	for (i = 0; i < eh->e_phnum; i++) {
		if (read_at(fd, &ph, sizeof(ph),
			    eh->e_phoff + (uint64_t)i * eh->e_phentsize))
			return -EINVAL;
		if (ph.p_type == PT_LOAD && foff >= ph.p_offset &&
		    foff < ph.p_offset + ph.p_filesz) {
			*vaddr = foff - ph.p_offset + ph.p_vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

/* The symbol table of @type and its strings' section. */
static int find_table(int fd, const Elf64_Ehdr *eh, uint32_t type,
		      Elf64_Shdr *tab, Elf64_Shdr *str)
{
	unsigned int i;

	for (i = 0; i < eh->e_shnum; i++) {
		if (read_at(fd, tab, sizeof(*tab),
			    eh->e_shoff + (uint64_t)i * eh->e_shentsize))
			return -EINVAL;
		if (tab->sh_type == type && tab->sh_entsize == sizeof(Elf64_Sym) &&
		    tab->sh_link < eh->e_shnum)
			return read_at(fd, str, sizeof(*str), eh->e_shoff +
				       (uint64_t)tab->sh_link * eh->e_shentsize);
	}
	return -ENOENT;
}

/* The function of @tab holding @vaddr: its name into @out. */
static int func_at(int fd, const Elf64_Shdr *tab, const Elf64_Shdr *str,
		   uint64_t vaddr, char *out, size_t size)
{
	Elf64_Sym syms[SYMS_BATCH];
	uint64_t n = tab->sh_size / sizeof(Elf64_Sym), i, j, k;
	ssize_t got;

	for (i = 0; i < n; i += SYMS_BATCH) {
		k = n - i < SYMS_BATCH ? n - i : SYMS_BATCH;
		if (read_at(fd, syms, k * sizeof(Elf64_Sym),
			    tab->sh_offset + i * sizeof(Elf64_Sym)))
			return -EINVAL;
		for (j = 0; j < k; j++) {
			const Elf64_Sym *sy = &syms[j];

			if (ELF64_ST_TYPE(sy->st_info) != STT_FUNC ||
			    vaddr < sy->st_value ||
			    vaddr >= sy->st_value + (sy->st_size ?: 1))
				continue;
			got = pread(fd, out, size - 1, str->sh_offset + sy->st_name);
			if (got <= 0)
				return -EINVAL;
			out[got] = '\0';
			return 0;
		}
	}
	return -ENOENT;
}

/* The function of file @path at file offset @foff, into @out. */
static int elf_func(const char *path, uint64_t foff, char *out, size_t size)
{
	Elf64_Shdr tab, str;
	Elf64_Ehdr eh;
	uint64_t vaddr;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = read_at(fd, &eh, sizeof(eh), 0);
	if (!ret && (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
		     eh.e_ident[EI_CLASS] != ELFCLASS64 ||
		     eh.e_shentsize != sizeof(Elf64_Shdr) ||
		     eh.e_phentsize != sizeof(Elf64_Phdr)))
		ret = -EINVAL;
	if (!ret)
		ret = to_vaddr(fd, &eh, foff, &vaddr);
	if (!ret) {
		ret = find_table(fd, &eh, SHT_SYMTAB, &tab, &str);
		if (!ret)
			ret = func_at(fd, &tab, &str, vaddr, out, size);
		if (ret && !find_table(fd, &eh, SHT_DYNSYM, &tab, &str))
			ret = func_at(fd, &tab, &str, vaddr, out, size);
	}
	close(fd);
	return ret;
}

/* @pid's mapping of @addr in DIR/maps: its file and file offset. */
static int find_map(const struct rp_syms *s, pid_t pid, uint64_t addr,
		    char *path, size_t size, uint64_t *foff)
{
	char line[4400], file[4096], name[4200];
	unsigned long long start, end, off;
	int p, found = -ENOENT;
	FILE *f;

	snprintf(name, sizeof(name), "%s/maps", s->dir);
	f = fopen(name, "re");
	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%d %llx %llx %llx %4095s", &p, &start, &end,
			   &off, file) != 5 || p != pid || addr < start ||
		    addr >= end)
			continue;
		snprintf(path, size, "%s", file);
		*foff = addr - start + off;
		found = 0;
	}
	fclose(f);
	return found;
}

/**
 * rp_user_name - a user address's function
 * @s: the symbols.
 * @pid: the process (the event's pid context).
 * @addr: the address.
 * @off: "function+0xoffset"-like detail rather than "function".
 * @out: where the name goes: the function, or FILE+0xOFFSET when the
 *	file has no symbol there, or the address when no mapping holds it.
 * @size: its size.
 */
void rp_user_name(const struct rp_syms *s, pid_t pid, uint64_t addr, bool off,
		  char *out, size_t size)
{
	char path[4096], alt[4200];
	const char *base;
	uint64_t foff;

	if (addr == RP_TRUNCATED) {
		snprintf(out, size, "[truncated]");
		return;
	}
	if (pid <= 0 || find_map(s, pid, addr, path, sizeof(path), &foff)) {
		snprintf(out, size, "0x%" PRIx64, addr);
		return;
	}
	if (!elf_func(path, foff, out, size))
		return;
	base = strrchr(path, '/');
	snprintf(alt, sizeof(alt), "%s/%s", s->binaries ?: ".",
		 base ? base + 1 : path);
	if (s->binaries && !elf_func(alt, foff, out, size))
		return;
	if (off)
		snprintf(out, size, "%s+0x%" PRIx64, path, foff);
	else
		snprintf(out, size, "%s", path);
}
