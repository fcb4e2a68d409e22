// SPDX-License-Identifier: GPL-2.0
/*
 * tring-record: a function's offset in an ELF file, for --probe's
 * PATH:SYMBOL[+OFFS] (as perf probe -x resolves it): the symbol's value
 * from the file's symbol table (.symtab, else .dynsym), made a file
 * offset through the PT_LOAD segment that holds it. 64-bit little-endian
 * ELF only (x86-64). The file is read with pread() in fixed-size pieces:
 * constant memory whatever the table's size.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

/* Symbols read per pread(). */
#define ELF_SYMS_BATCH	256

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, off);

	return n == (ssize_t)len ? 0 : -EINVAL;
}

/* The section header @i of @eh. */
static int section(int fd, const Elf64_Ehdr *eh, unsigned int i,
		   Elf64_Shdr *sh)
{
	if (i >= eh->e_shnum)
		return -EINVAL;
	return read_at(fd, sh, sizeof(*sh),
		       eh->e_shoff + (uint64_t)i * eh->e_shentsize);
}

/* The table of @type (SHT_SYMTAB, SHT_DYNSYM) and its strings. */
static int find_table(int fd, const Elf64_Ehdr *eh, uint32_t type,
		      Elf64_Shdr *tab, Elf64_Shdr *str)
{
	unsigned int i;

	for (i = 0; i < eh->e_shnum; i++) {
		if (section(fd, eh, i, tab))
			return -EINVAL;
		if (tab->sh_type == type && tab->sh_entsize == sizeof(Elf64_Sym))
			return section(fd, eh, tab->sh_link, str);
	}
	return -ENOENT;
}

/* Whether the symbol's name, at @off of @str, is @name. */
static bool name_is(int fd, const Elf64_Shdr *str, uint32_t off,
		    const char *name)
{
	size_t len = strlen(name) + 1;
	char buf[256];

	if (len > sizeof(buf) || off >= str->sh_size ||
	    str->sh_size - off < len)
		return false;
	return !read_at(fd, buf, len, str->sh_offset + off) &&
	       !memcmp(buf, name, len);
}

/* @name's value in table @tab: 0, -ENOENT, or -EINVAL. */
static int lookup(int fd, const Elf64_Shdr *tab, const Elf64_Shdr *str,
		  const char *name, uint64_t *value)
{
	Elf64_Sym syms[ELF_SYMS_BATCH];
	uint64_t n = tab->sh_size / sizeof(Elf64_Sym), i, k, m;

	for (i = 0; i < n; i += m) {
		m = n - i < ELF_SYMS_BATCH ? n - i : ELF_SYMS_BATCH;
		if (read_at(fd, syms, m * sizeof(*syms),
			    tab->sh_offset + i * sizeof(*syms)))
			return -EINVAL;
		for (k = 0; k < m; k++) {
			if (syms[k].st_shndx == SHN_UNDEF || !syms[k].st_value ||
			    !name_is(fd, str, syms[k].st_name, name))
				continue;
			*value = syms[k].st_value;
			return 0;
		}
	}
	return -ENOENT;
}

/* The file offset of address @value: through its PT_LOAD segment. */
static int to_offset(int fd, const Elf64_Ehdr *eh, uint64_t value,
		     uint64_t *off)
{
	Elf64_Phdr ph;
	unsigned int i;

	for (i = 0; i < eh->e_phnum; i++) {
		if (read_at(fd, &ph, sizeof(ph),
			    eh->e_phoff + (uint64_t)i * eh->e_phentsize))
			return -EINVAL;
		if (ph.p_type == PT_LOAD && value >= ph.p_vaddr &&
		    value - ph.p_vaddr < ph.p_filesz) {
			*off = value - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

static bool header_ok(const Elf64_Ehdr *eh)
{
	return !memcmp(eh->e_ident, ELFMAG, SELFMAG) &&
	       eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_ident[EI_DATA] == ELFDATA2LSB &&
	       eh->e_shentsize == sizeof(Elf64_Shdr) &&
	       eh->e_phentsize == sizeof(Elf64_Phdr);
}

/**
 * tr_elf_offset - the file offset of a symbol of an ELF file
 * @path: the file.
 * @name: the symbol.
 * @off: set to its offset in the file.
 * @why: set to why not, on failure.
 *
 * Return: 0, or -errno (ENOENT: no such symbol, EINVAL: not a 64-bit
 * little-endian ELF file, or a damaged one; open()'s).
 */
int tr_elf_offset(const char *path, const char *name, uint64_t *off,
		  const char **why)
{
	Elf64_Shdr tab, str;
	uint64_t value;
	Elf64_Ehdr eh;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = "cannot open the file";
		return -errno;
	}
	ret = read_at(fd, &eh, sizeof(eh), 0);
	if (ret || !header_ok(&eh)) {
		*why = "not a 64-bit little-endian ELF file";
		ret = -EINVAL;
		goto out;
	}
	ret = find_table(fd, &eh, SHT_SYMTAB, &tab, &str);
	if (!ret)
		ret = lookup(fd, &tab, &str, name, &value);
	if (ret && !find_table(fd, &eh, SHT_DYNSYM, &tab, &str))
		ret = lookup(fd, &tab, &str, name, &value);
	if (!ret)
		ret = to_offset(fd, &eh, value, off);
	if (ret)
		*why = ret == -ENOENT ? "no such symbol in the file" :
		       "a damaged ELF file";
out:
	close(fd);
	return ret;
}
