# SPDX-License-Identifier: GPL-2.0
#
# Generate tring_syscalls.h: for each x86_64 system call of the kernel
# being built against, its name and its arguments' names, from that
# kernel's own headers:
#
#   asm/syscalls_64.h      __SYSCALL(nr, sys_<name>): numbers and names
#   linux/syscalls.h       asmlinkage long sys_<name>(type name, ...);
#
# usage: awk -f tring_syscalls.awk syscalls_64.h syscalls.h > tring_syscalls.h
#
# For each number, one line
#
#   TRING_SYSCALL(nr, sys_<name>, nargs, path, "arg0", ..., "arg5")
#
# and first TRING_SYSCALLS_END, one more than the highest number.
#
# nargs: the arguments of the call; path: 1 + the index of an argument
# that is a user-space path (a const char __user * named filename,
# pathname or path), recorded as text, or 0.
#
# The headers do not name every argument: some prototypes give types
# alone (the socket calls, sendto, recvfrom, pselect6, ...), and the
# calls x86 defines itself (mmap, rt_sigreturn, modify_ldt, arch_prctl,
# iopl) have no prototype in linux/syscalls.h (nor, since 5.x, in
# arch/x86/include/asm/syscalls.h). Those calls' arguments are named
# below as their SYSCALL_DEFINE<n>() in the kernel's sources names them
# (the names the kernel's syscall metadata, ftrace's sys_enter_<name>
# events and LTTng's syscall events use). An argument still without a
# name is arg<i> by its position, and a call the headers and the list
# below both miss records six raw arguments, arg0 to arg5: the line of
# either ends in the comment "unnamed", which scripts/syscall-names.sh
# looks for.

# The x86_64 calls whose arguments the headers leave unnamed, and their
# arguments as the kernel's SYSCALL_DEFINE<n>() names them ("" for none).
BEGIN {
	defined["sys_mmap"] = "addr len prot flags fd off"
	defined["sys_rt_sigaction"] = "sig act oact sigsetsize"
	defined["sys_rt_sigreturn"] = ""
	defined["sys_socket"] = "family type protocol"
	defined["sys_connect"] = "fd uservaddr addrlen"
	defined["sys_accept"] = "fd upeer_sockaddr upeer_addrlen"
	defined["sys_sendto"] = "fd buff len flags addr addr_len"
	defined["sys_recvfrom"] = "fd ubuf size flags addr addr_len"
	defined["sys_shutdown"] = "fd how"
	defined["sys_bind"] = "fd umyaddr addrlen"
	defined["sys_listen"] = "fd backlog"
	defined["sys_getsockname"] = "fd usockaddr usockaddr_len"
	defined["sys_getpeername"] = "fd usockaddr usockaddr_len"
	defined["sys_socketpair"] = "family type protocol usockvec"
	defined["sys_clone"] = "clone_flags newsp parent_tidptr child_tidptr tls"
	defined["sys_modify_ldt"] = "func ptr bytecount"
	defined["sys_arch_prctl"] = "option arg2"
	defined["sys_iopl"] = "level"
	defined["sys_io_submit"] = "ctx_id nr iocbpp"
	defined["sys_pselect6"] = "n inp outp exp tsp sig"
	defined["sys_ppoll"] = "ufds nfds tsp sigmask sigsetsize"
	defined["sys_accept4"] = "fd upeer_sockaddr upeer_addrlen flags"
}

FNR == 1 { file++ }

# The name a prototype gives an argument ("int dfd": dfd), or "" when it
# gives none ("int", "unsigned long", "struct sockaddr __user *").
function argument_name(a,   t, n, last) {
	if (a ~ /\*$/)
		return ""
	gsub(/\*/, " ", a)
	n = split(a, t, / +/)
	last = t[n]
	if (n < 2 || last ~ /^(int|long|short|char|signed|unsigned|void)$/ ||
	    t[n - 1] ~ /^(struct|union|enum)$/)
		return ""
	return last
}

# A field name for argument name @a: a CTF keyword gets a leading "_",
# as LTTng does.
function ctf_name(a) {
	if (a ~ /^(align|callsite|clock|const|enum|env|event|floating_point|integer|stream|string|struct|trace|typealias|typedef|variant|void|float|double)$/)
		return "_" a
	return a
}

# asm/syscalls_64.h
file == 1 && /^__SYSCALL(_NORETURN)?\(/ {
	line = $0
	sub(/^__SYSCALL(_NORETURN)?\(/, "", line)
	sub(/\).*/, "", line)
	split(line, a, /, */)
	nr = a[1] + 0
	sym[nr] = a[2]
	if (nr > max)
		max = nr
	next
}

# linux/syscalls.h: prototypes, which may span lines. Of a call declared
# more than once (clone, under #ifdef), the last declaration counts: the
# #else one, x86_64's.
file == 2 && !proto && /^asmlinkage long sys_[a-z0-9_]+\(/ {
	proto = $0
}
file == 2 && proto && proto != $0 {
	proto = proto " " $0
}
file == 2 && proto && /;/ {
	name = proto
	sub(/^asmlinkage long /, "", name)
	sub(/\(.*/, "", name)
	args = proto
	sub(/^[^(]*\(/, "", args)
	sub(/\)[^)]*$/, "", args)
	gsub(/[\t ]+/, " ", args)
	n = split(args, arg, / *, */)
	if (n == 1 && (arg[1] ~ /^ *void *$/ || arg[1] ~ /^ *$/))
		n = 0
	nargs[name] = n
	pathi[name] = 0
	unnamed[name] = 0
	nd = name in defined ? split(defined[name], dn, / /) : -1
	for (i = 1; i <= n; i++) {
		a1 = arg[i]
		sub(/^ */, "", a1)
		sub(/ *$/, "", a1)
		an = argument_name(a1)
		if (an == "" && nd == n)
			an = dn[i]
		if (an == "") {
			an = "arg" (i - 1)
			unnamed[name] = 1
		}
		argname[name, i] = ctf_name(an)
		if (!pathi[name] && a1 ~ /char __user \*/ &&
		    an ~ /^(filename|pathname|path)$/)
			pathi[name] = i
	}
	proto = ""
}

# The calls without a prototype that the list above names.
END {
	for (name in defined) {
		if (name in nargs)
			continue
		nargs[name] = split(defined[name], dn, / /)
		pathi[name] = 0
		unnamed[name] = 0
		for (i = 1; i <= nargs[name]; i++)
			argname[name, i] = ctf_name(dn[i])
	}
}

END {
	print "/* SPDX-License-Identifier: GPL-2.0 */"
	print "/* Generated by tring_syscalls.awk from the kernel's headers: do not edit. */"
	for (end = max + 1; end > 0 && sym[end - 1] == ""; end--)
		;
	print "/* One more than the highest number below. */"
	print "#ifndef TRING_SYSCALLS_END"
	print "#define TRING_SYSCALLS_END " end
	print "#endif"
	for (nr = 0; nr <= max; nr++) {
		s = sym[nr]
		if (s == "")
			continue
		line = "TRING_SYSCALL(" nr ", " s
		if (s in nargs) {
			line = line ", " nargs[s] ", " pathi[s]
			for (i = 1; i <= 6; i++)
				line = line ", " (i <= nargs[s] ? "\"" argname[s, i] "\"" : "NULL")
			line = line ")" (unnamed[s] ? " /* unnamed */" : "")
		} else {
			line = line ", 6, 0"
			for (i = 0; i < 6; i++)
				line = line ", \"arg" i "\""
			line = line ") /* unnamed */"
		}
		print line
	}
}
