// SPDX-License-Identifier: GPL-2.0
/*
 * tring: dynamic probe definitions: the line, the command, the probe
 * point, the event's name, and the definition's block.
 *
 *	p[:[GRP/]EVENT] [MOD:]SYM[+OFFS]|ADDR [FETCHARGS]	kprobe_events
 *	r[MAXACTIVE][:[GRP/]EVENT] [MOD:]SYM[+0]|ADDR [FETCHARGS]
 *	p[:[GRP/]EVENT] [MOD:]SYM[+0]%return [FETCHARGS]
 *	p[:[GRP/]EVENT] PATH:OFFSET[%return][(REF)] [FETCHARGS]	uprobe_events
 *	r[:[GRP/]EVENT] PATH:OFFSET[(REF)] [FETCHARGS]
 *	-:[GRP/]EVENT						either
 *
 * as ftrace reads them: words apart by blanks (the kernel's isspace()),
 * a '#' starts a comment that runs to the end of the line, a line without
 * a word does nothing; GRP.EVENT is GRP/EVENT; numbers are C's (0x hex,
 * 0 octal). The fetch arguments are tring_probe_fetch.c's.
 *
 * Where ftrace takes text it then ignores ("pfoo:ev", a removal's extra
 * words), or leaves symbols to kallsyms, this refuses at parse time: an
 * error names the byte where it is, as ftrace's error_log does.
 */
#include <linux/bug.h>
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "tring_probe.h"

/**
 * tring_probe_fail - record an error of the parse (the first one stays)
 * @p: the parser.
 * @at: where in the line.
 * @msg: why (a static string).
 *
 * Return: -EINVAL.
 */
int tring_probe_fail(struct tring_probe_parser *p, const char *at,
		     const char *msg)
{
	if (!p->err->msg) {
		p->err->pos = at - p->line;
		p->err->msg = msg;
	}
	return -EINVAL;
}

/**
 * tring_probe_chars - take bytes for a string in the definition's chars
 * @p: the parser.
 * @s: the string (not NUL-terminated).
 * @len: its bytes.
 *
 * The second pass copies @s and a NUL there; the first only counts.
 *
 * Return: the string's offset in the chars.
 */
u32 tring_probe_chars(struct tring_probe_parser *p, const char *s,
		      unsigned int len)
{
	u32 off = p->nr_chars;

	if (p->fill) {
		memcpy(p->chars + off, s, len);
		p->chars[off + len] = '\0';
	}
	p->nr_chars += len + 1;
	return off;
}

/* A string in the chars: its address (second pass), NULL (first). */
static const char *tp_str(struct tring_probe_parser *p, const char *s,
			  unsigned int len)
{
	u32 off = tring_probe_chars(p, s, len);

	return p->fill ? p->chars + off : NULL;
}

static unsigned int tp_digit_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return 16;
}

/**
 * tring_probe_ulong - read an unsigned number that fills @len bytes
 * @s: the text.
 * @len: its bytes.
 * @base: 10, or 0 for C's bases: 0x hexadecimal, 0 octal, else decimal.
 * @val: the number.
 *
 * As kstrtoul(), without a sign, a blank or a newline.
 *
 * Return: true if @s is such a number and fits an unsigned long.
 */
bool tring_probe_ulong(const char *s, unsigned int len, unsigned int base,
		       unsigned long *val)
{
	unsigned long v = 0;
	unsigned int i = 0, d;

	if (!base) {
		base = 10;
		if (len > 1 && s[0] == '0') {
			base = (s[1] | 0x20) == 'x' ? 16 : 8;
			i = base == 16 ? 2 : 1;
		}
	}
	if (i >= len)
		return false;
	for (; i < len; i++) {
		d = tp_digit_val(s[i]);
		if (d >= base || v > (ULONG_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*val = v;
	return true;
}

/**
 * tring_probe_signed - read a number in C's bases, given its sign
 * @s: the digits, as tring_probe_ulong() reads them.
 * @len: their bytes.
 * @neg: negate it.
 * @val: the number.
 *
 * Return: true if @s is such a number and the result fits a long.
 */
bool tring_probe_signed(const char *s, unsigned int len, bool neg,
			long *val)
{
	unsigned long v;

	if (!tring_probe_ulong(s, len, 0, &v))
		return false;
	if (v > (unsigned long)LONG_MAX + neg)
		return false;
	/* -v without overflow: v may be LONG_MAX + 1. */
	*val = neg && v ? -(long)(v - 1) - 1 : (long)v;
	return true;
}

/**
 * tring_probe_long - read a signed number that fills @len bytes
 * @s: the text: an optional '+' or '-', then a number in C's bases.
 * @len: its bytes.
 * @val: the number.
 *
 * Return: true if @s is such a number and fits a long.
 */
bool tring_probe_long(const char *s, unsigned int len, long *val)
{
	if (len && (s[0] == '-' || s[0] == '+'))
		return tring_probe_signed(s + 1, len - 1, s[0] == '-', val);
	return tring_probe_signed(s, len, false, val);
}

static bool tp_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool tp_alnum(char c)
{
	return tp_alpha(c) || (c >= '0' && c <= '9');
}

/**
 * tring_probe_name_ok - whether a text is a good name, as ftrace's
 * @s: the text.
 * @len: its bytes.
 * @group: a group's name, where '-' is a letter too.
 *
 * Return: true for a C identifier (ASCII letters only), or a group's.
 */
bool tring_probe_name_ok(const char *s, unsigned int len, bool group)
{
	unsigned int i;

	if (!len || (!tp_alpha(s[0]) && !(group && s[0] == '-')))
		return false;
	for (i = 1; i < len; i++)
		if (!tp_alnum(s[i]) && !(group && s[i] == '-'))
			return false;
	return true;
}

/**
 * tring_probe_symbol_ok - whether a text is a kernel symbol's name
 * @s: the text: [MOD:]SYM, SYM letters, digits, '_' and '.' (as in
 *	"foo.isra.0"), not a digit first.
 * @len: its bytes.
 *
 * Return: true if so.
 */
bool tring_probe_symbol_ok(const char *s, unsigned int len)
{
	const char *colon = memchr(s, ':', len);
	unsigned int i;

	if (colon) {
		/* A module's name: letters, digits and '_'. */
		if (colon == s)
			return false;
		for (i = 0; i < colon - s; i++)
			if (!tp_alnum(s[i]))
				return false;
		len -= colon + 1 - s;
		s = colon + 1;
	}
	if (!len || !tp_alpha(s[0]))
		return false;
	for (i = 1; i < len; i++)
		if (!tp_alnum(s[i]) && s[i] != '.')
			return false;
	return true;
}

/* The next word at or after *pos: its length, 0 if none; *pos its start. */
static unsigned int tp_word(const struct tring_probe_parser *p,
			    unsigned int *pos)
{
	unsigned int i = *pos;

	while (i < p->end && isspace(p->line[i]))
		i++;
	*pos = i;
	while (i < p->end && !isspace(p->line[i]))
		i++;
	return i - *pos;
}

/* MAXACTIVE, the text between "r" and ':' (or the word's end). */
static int tp_maxactive(struct tring_probe_parser *p, const char *s,
			unsigned int len)
{
	unsigned long v;

	if (s[0] < '0' || s[0] > '9')
		return tring_probe_fail(p, s, "':' expected after the command");
	if (!p->ret || p->uprobe)
		return tring_probe_fail(p, s, "MAXACTIVE is only for kretprobes");
	if (!tring_probe_ulong(s, len, 0, &v) || !v)
		return tring_probe_fail(p, s, "bad MAXACTIVE");
	if (v > TRING_PROBE_MAX_ACTIVE)
		return tring_probe_fail(p, s, "MAXACTIVE is too big");
	p->def->maxactive = v;
	return 0;
}

/* The first word: p, r[MAXACTIVE] or -, and where [GRP/]EVENT is. */
static int tp_command(struct tring_probe_parser *p, const char *s,
		      unsigned int len, const char **ev, unsigned int *ev_len)
{
	unsigned int i = 1;
	int ret;

	if (s[0] == '-') {
		p->def->kind = TRING_PROBE_REMOVE;
		if (len < 2 || s[1] != ':')
			return tring_probe_fail(p, s + 1, "':' expected after '-'");
		*ev = s + 2;
		*ev_len = len - 2;
		return 0;
	}
	if (s[0] != 'p' && s[0] != 'r')
		return tring_probe_fail(p, s, "unknown command: not p, r or -");
	p->ret = s[0] == 'r';
	while (i < len && s[i] != ':')
		i++;
	if (i > 1) {
		ret = tp_maxactive(p, s + 1, i - 1);
		if (ret)
			return ret;
	}
	if (i < len) {
		*ev = s + i + 1;
		*ev_len = len - i - 1;
	}
	return 0;
}

/* [GRP/]EVENT (or GRP.EVENT); *named false: no EVENT, generate it. */
static int tp_event(struct tring_probe_parser *p, const char *s,
		    unsigned int len, bool *named)
{
	bool rm = p->def->kind == TRING_PROBE_REMOVE;
	const char *sep = memchr(s, '/', len);
	unsigned int glen;

	sep = sep ?: memchr(s, '.', len);
	*named = true;
	if (sep) {
		glen = sep - s;
		if (!glen)
			return tring_probe_fail(p, s, "group name missing");
		if (glen > TRING_PROBE_MAX_EVENT)
			return tring_probe_fail(p, s, "group name too long");
		if (!tring_probe_name_ok(s, glen, true))
			return tring_probe_fail(p, s,
						"bad group name: letters, digits, '_' and '-'");
		p->def->group = tp_str(p, s, glen);
		s = sep + 1;
		len -= glen + 1;
	}
	if (!len && sep) {
		*named = rm;
		p->def->event = "";
		return 0;
	}
	if (!len)
		return tring_probe_fail(p, s, "event name missing");
	if (len > TRING_PROBE_MAX_EVENT)
		return tring_probe_fail(p, s, "event name too long");
	if (!tring_probe_name_ok(s, len, false))
		return tring_probe_fail(p, s, "event name is not a C identifier");
	p->def->event = tp_str(p, s, len);
	return 0;
}

/* ftrace's name for an unnamed probe: p_SYM_OFFS, p_0xADDR, p_FILE_0xOFFS. */
static void tp_event_name(struct tring_probe_parser *p)
{
	char buf[TRING_PROBE_MAX_EVENT + 1];
	const char *base = p->target;
	unsigned int i, len = p->target_len;
	char c = p->ret ? 'r' : 'p';

	if (p->uprobe) {
		for (i = 0; i < p->target_len; i++)
			if (p->target[i] == '/')
				base = p->target + i + 1;
		len = p->target + p->target_len - base;
		for (i = 0; i < len; i++)
			if (base[i] == '.' || base[i] == '-' || base[i] == '_')
				break;
		len = i;
		/* ftrace's: "p" for a uretprobe too. */
		snprintf(buf, sizeof(buf), "p_%.*s_0x%lx", (int)len, base,
			 p->def->offset);
	} else if (p->target) {
		snprintf(buf, sizeof(buf), "%c_%.*s_%lu", c, (int)len, base,
			 p->def->offset);
	} else {
		snprintf(buf, sizeof(buf), "%c_0x%016lx", c, p->def->addr);
	}
	for (i = 0; buf[i]; i++)
		if (!tp_alnum(buf[i]))
			buf[i] = '_';
	p->def->event = tp_str(p, buf, strlen(buf));
}

/* A string that is exactly "%return" (or else an error). */
static int tp_return(struct tring_probe_parser *p, const char *s,
		     const char *end)
{
	if (!tring_probe_is(s, end - s, "%return"))
		return tring_probe_fail(p, s, "bad suffix: only %return");
	p->ret = true;
	return 0;
}

/* [MOD:]SYM[+OFFS][%return] or ADDR. */
static int tp_ktarget(struct tring_probe_parser *p, const char *s,
		      unsigned int len)
{
	const char *end = s + len, *pct, *sign;
	unsigned long addr;
	long off = 0;

	if (tring_probe_ulong(s, len, 0, &addr)) {
		p->def->addr = addr;
		return 0;
	}
	if (memchr(s, '/', len) && memchr(s, ':', len))
		return tring_probe_fail(p, s, "PATH:OFFSET is for uprobe_events");
	pct = memchr(s, '%', len);
	if (pct && tp_return(p, pct, end))
		return -EINVAL;
	end = pct ?: end;
	sign = strpbrk(s, "+-");
	sign = sign && sign < end ? sign : end;
	if (!tring_probe_symbol_ok(s, sign - s))
		return tring_probe_fail(p, s, "bad symbol name");
	if (sign < end && (!tring_probe_long(sign, end - sign, &off) ||
			   off < 0 || off > U32_MAX))
		return tring_probe_fail(p, sign, "bad offset from the symbol");
	if (p->ret && off)
		return tring_probe_fail(p, sign,
					"a return probe is on a function's entry: no offset");
	p->fentry = !p->ret && !off;
	p->target = s;
	p->target_len = sign - s;
	p->def->symbol = tp_str(p, s, sign - s);
	p->def->offset = off;
	return 0;
}

/* The uprobe's "(REF)" from @open to @end. */
static int tp_refctr(struct tring_probe_parser *p, const char *open,
		     const char *end)
{
	const char *close = memchr(open, ')', end - open);

	if (!close)
		return tring_probe_fail(p, end, "'(' not closed");
	if (close + 1 != end)
		return tring_probe_fail(p, close + 1, "unexpected text after ')'");
	if (!tring_probe_ulong(open + 1, close - open - 1, 0,
			       &p->def->ref_ctr_offset))
		return tring_probe_fail(p, open + 1, "bad reference counter offset");
	return 0;
}

/* PATH:OFFSET[%return][(REF)]. */
static int tp_utarget(struct tring_probe_parser *p, const char *s,
		      unsigned int len)
{
	const char *end = s + len, *colon = NULL, *num, *open, *pct;
	unsigned int i;

	if (!memchr(s, '/', len))
		return tring_probe_fail(p, s, "PATH:OFFSET expected, PATH with a '/'");
	for (i = 0; i < len; i++)
		if (s[i] == ':')
			colon = s + i;
	if (!colon)
		return tring_probe_fail(p, end, "':OFFSET' expected after the path");
	num = colon + 1;
	if (num == end || num[0] < '0' || num[0] > '9')
		return tring_probe_fail(p, num, "the offset must be a number");
	open = memchr(num, '(', end - num);
	if (open && tp_refctr(p, open, end))
		return -EINVAL;
	end = open ?: end;
	pct = memchr(num, '%', end - num);
	if (pct && tp_return(p, pct, end))
		return -EINVAL;
	end = pct ?: end;
	if (!tring_probe_ulong(num, end - num, 0, &p->def->offset))
		return tring_probe_fail(p, num, "bad uprobe offset");
	p->target = s;
	p->target_len = colon - s;
	p->def->path = tp_str(p, s, colon - s);
	return 0;
}

/* A probe: the probe point, the event's name, the arguments. */
static int tp_probe(struct tring_probe_parser *p, unsigned int pos,
		    const char *ev, unsigned int ev_len)
{
	struct tring_probe_def *def = p->def;
	unsigned int len = tp_word(p, &pos);
	bool named = false;
	int ret;

	if (!len)
		return tring_probe_fail(p, p->line + pos, p->uprobe ?
					"PATH:OFFSET expected" :
					"symbol or address expected");
	if (p->uprobe)
		ret = tp_utarget(p, p->line + pos, len);
	else
		ret = tp_ktarget(p, p->line + pos, len);
	if (ret)
		return ret;
	def->group = p->uprobe ? TRING_PROBE_UGROUP : TRING_PROBE_KGROUP;
	if (ev && tp_event(p, ev, ev_len, &named))
		return -EINVAL;
	if (!named)
		tp_event_name(p);
	if (p->uprobe)
		def->kind = p->ret ? TRING_PROBE_URETPROBE : TRING_PROBE_UPROBE;
	else
		def->kind = p->ret ? TRING_PROBE_KRETPROBE : TRING_PROBE_KPROBE;
	def->head_size = p->ret ? 16 : 8;
	p->rec = def->head_size;
	p->args_at = pos + len;
	for (pos += len; (len = tp_word(p, &pos)); pos += len) {
		ret = tring_probe_parse_arg(p, p->line + pos, len);
		if (ret)
			return ret;
	}
	def->fixed_size = p->rec;
	return 0;
}

/* One pass over the line. Return: 1 a definition, 0 none, or -errno. */
static int tp_line(struct tring_probe_parser *p)
{
	const char *ev = NULL, *s;
	unsigned int pos = 0, len, ev_len = 0;
	bool named;
	int ret;

	len = tp_word(p, &pos);
	if (!len)
		return 0;
	s = p->line + pos;
	ret = tp_command(p, s, len, &ev, &ev_len);
	if (ret)
		return ret;
	pos += len;
	if (p->def->kind != TRING_PROBE_REMOVE)
		return tp_probe(p, pos, ev, ev_len) ?: 1;
	ret = tp_event(p, ev, ev_len, &named);
	if (ret)
		return ret;
	if (tp_word(p, &pos))
		return tring_probe_fail(p, p->line + pos, "nothing may follow the event's name");
	return 1;
}

/* One pass over @line with a fresh state: @p->fill tells which. */
static int tp_pass(struct tring_probe_parser *p, const char *line,
		   enum tring_probe_file file, struct tring_probe_def *def)
{
	struct tring_probe_error *err = p->err;
	const char *hash;
	bool fill = p->fill;
	size_t len;

	len = strnlen(line, TRING_PROBE_MAX_LINE + 1);
	memset(p, 0, sizeof(*p));
	p->line = line;
	p->err = err;
	p->def = def;
	p->fill = fill;
	p->uprobe = file == TRING_PROBE_FILE_UPROBE;
	if (len > TRING_PROBE_MAX_LINE)
		return tring_probe_fail(p, line + len - 1, "line too long");
	hash = memchr(line, '#', len);
	p->end = hash ? (size_t)(hash - line) : len;
	if (fill) {
		p->dst_ops = (struct tring_probe_op *)(def + 1);
		p->args = (struct tring_probe_arg *)(p->dst_ops + def->nr_ops);
		p->chars = (char *)(p->args + def->nr_args);
	}
	return tp_line(p);
}

/*
 * Whether every argument of @def is stored straight from a register and
 * the fields leave no byte between them (struct tring_probe_def's
 * direct).
 */
static bool tp_direct(const struct tring_probe_def *def)
{
	unsigned int i, end = def->head_size;

	/* A removal is never evaluated. */
	if (!def->head_size)
		return false;
	for (i = 0; i < def->nr_args; i++) {
		if (def->args[i].reg == TRING_PROBE_NO_REG ||
		    def->args[i].offset != end)
			return false;
		end += def->args[i].size;
	}
	return end == def->fixed_size;
}

/**
 * tring_probe_parse - parse and compile one line of kprobe_events or
 *	uprobe_events
 * @line: the line, without its newline; at most TRING_PROBE_MAX_LINE
 *	bytes, comment included.
 * @file: the file it was written to.
 * @err: where an error goes: its position in @line and why.
 *
 * Validates everything that can be without the kernel's symbols and the
 * file system: the syntax, the limits, names, registers, which variables
 * and types the probe allows. Sleeps (GFP_KERNEL); any thread.
 *
 * Return: the definition, to be freed with tring_probe_free(); NULL for a
 * line with nothing to do (blank or a comment); ERR_PTR(-EINVAL) with
 * @err set, or ERR_PTR(-ENOMEM).
 */
struct tring_probe_def *tring_probe_parse(const char *line,
					  enum tring_probe_file file,
					  struct tring_probe_error *err)
{
	struct tring_probe_parser p = { .err = err };
	struct tring_probe_def head = {}, *def;
	unsigned int nr_chars;
	size_t size;
	int ret;

	err->pos = 0;
	err->msg = NULL;
	ret = tp_pass(&p, line, file, &head);
	if (ret <= 0)
		return ret ? ERR_PTR(ret) : NULL;
	nr_chars = p.nr_chars;
	size = sizeof(*def) + p.nr_ops * sizeof(*p.ops) +
	       p.nr_args * sizeof(*def->args) + nr_chars;
	def = kzalloc(size, GFP_KERNEL);
	if (!def)
		return ERR_PTR(-ENOMEM);
	def->nr_args = p.nr_args;
	def->nr_ops = p.nr_ops;
	p.fill = true;
	ret = tp_pass(&p, line, file, def);
	/* The same line, the same checks: the second pass cannot fail. */
	if (WARN_ON_ONCE(ret != 1 || p.nr_args != def->nr_args ||
			 p.nr_ops != def->nr_ops || p.nr_chars != nr_chars)) {
		kfree(def);
		return ERR_PTR(-EINVAL);
	}
	def->size = size;
	def->args = p.args;
	def->ops = p.dst_ops;
	def->chars = p.chars;
	def->direct = tp_direct(def);
	return def;
}

/**
 * tring_probe_free - free a definition
 * @def: what tring_probe_parse() returned, or NULL.
 */
void tring_probe_free(struct tring_probe_def *def)
{
	kfree(def);
}

/* Append @c to @buf if it fits (with a NUL after); count it anyway. */
static void tp_put(char *buf, size_t size, size_t *n, char c)
{
	if (*n + 1 < size)
		buf[*n] = c;
	(*n)++;
}

/**
 * tring_probe_error_show - the line and a caret under the error, as
 *	ftrace's error_log shows a command
 * @buf: where to write: "LINE\n" then blanks and "^\n".
 * @size: bytes of @buf; the text is cut to fit, NUL-terminated.
 * @line: the line given to tring_probe_parse(), shown up to its first
 *	newline and at most TRING_PROBE_MAX_LINE bytes; control characters
 *	are shown as '?' (a tab as a tab, the caret's line has it too).
 * @err: the error it reported.
 *
 * Return: the bytes written, without the NUL.
 */
int tring_probe_error_show(char *buf, size_t size, const char *line,
			   const struct tring_probe_error *err)
{
	size_t len = strnlen(line, TRING_PROBE_MAX_LINE), i, n = 0;
	const char *nl = memchr(line, '\n', len);
	unsigned char c;

	if (nl)
		len = nl - line;
	for (i = 0; i < len; i++) {
		c = line[i];
		tp_put(buf, size, &n, (c < ' ' && c != '\t') || c == 0x7f ?
		       '?' : c);
	}
	tp_put(buf, size, &n, '\n');
	for (i = 0; i < err->pos && i <= TRING_PROBE_MAX_LINE; i++)
		tp_put(buf, size, &n, i < len && line[i] == '\t' ? '\t' : ' ');
	tp_put(buf, size, &n, '^');
	tp_put(buf, size, &n, '\n');
	if (size)
		buf[min(n, size - 1)] = '\0';
	return min(n, size ? size - 1 : 0);
}
