#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel splats found in guest logs; exit 1 if there is any.
# A splat fails a test run even when every test passed.
#
# usage: splat.sh LOG...
#
# SPLAT_SYSTEM_MAP: the guest kernel's System.map (see drop_latch_reports)
# SPLAT_ALLOW_ALLOC_FAILURES=1: a run that injects allocation failures
# (see drop_alloc_failures)

# Reports of WARN/BUG, oopses, lockdep, KCSAN/KASAN/UBSAN, sleeping in
# atomic context, lockups and RCU stalls all start with one of these.
splat='WARNING:|BUG:|Oops|general protection fault|Kernel panic|kernel BUG|'
splat+='UBSAN:|KASAN:|KCSAN:|INFO: |scheduling while atomic|soft lockup|'
splat+='hard LOCKUP|rcu_.*stall|Call Trace:|unable to handle'

# Not a splat: the NMI code's note (KERN_INFO) that a handler ran longer
# than 1 ms. Under software emulation the first run of any code path is
# slow (QEMU translates it), and the stress test's self-NMIs run every
# NMI handler the kernel has, its own backtrace handler included.
benign='INFO: NMI handler \([a-z_0-9]+( \[[a-z_0-9]+\])?\) took too long to run: [0-9.]+ msecs$'

# Not a splat of ours: a KCSAN report whose every access lies in the NMI-safe
# clock's two latch copies (tk_fast_mono, tk_fast_raw). Their readers,
# ktime_get_mono_fast_ns() and friends, read one copy while the timekeeper
# rewrites the other, and retry if the sequence count moved: a race by
# design, which seqcount_latch_t readers did not declare to KCSAN before
# Linux 6.13. The same for the timekeeper itself, tk_core: the tick
# (timekeeping_advance()) rewrites it whole under its seqcount while
# readers in interrupts (ktime_get() and friends) read it inside
# read_seqcount_begin()/retry and retry when it moved; KCSAN's window
# for such readers can close before the reader's accesses do, under
# lockdep (seen once in debug-6.1-smp4: timekeeping_advance()'s 280-byte
# copy against an 8-byte read of tk_core on another CPU). tring never
# writes either. Needs the kernel's System.map in SPLAT_SYSTEM_MAP to
# know where they are; without it every KCSAN report counts.
latch_ranges() {
	[ -r "${SPLAT_SYSTEM_MAP:-}" ] || return 0
	sort "$SPLAT_SYSTEM_MAP" | awk '
		prev != "" { print prev, $1; prev = "" }
		$3 == "tk_fast_mono" || $3 == "tk_fast_raw" || $3 == "tk_core" { prev = $1 }'
}

# Drop the KCSAN reports (from "BUG: KCSAN" to the closing "====" line)
# whose accesses all fall in those ranges.
drop_latch_reports() {
	awk -v ranges="$(latch_ranges)" '
	# Addresses as 16 lower-case hex digits compare as strings (awk
	# numbers are doubles: too coarse for 64-bit addresses).
	function norm(s) {
		s = tolower(s)
		sub(/^0x/, "", s)
		while (length(s) < 16)
			s = "0" s
		return s
	}
	function in_latch(a,   i) {
		for (i = 1; i <= nr; i++)
			if (a >= lo[i] && a < hi[i])
				return 1
		return 0
	}
	BEGIN {
		n = split(ranges, r, /[ \n]+/)
		for (i = 1; i + 1 <= n; i += 2) {
			if (r[i] == "")
				continue
			nr++
			lo[nr] = norm(r[i])
			hi[nr] = norm(r[i + 1])
		}
	}
	/BUG: KCSAN:/ { inrep = 1; nl = 0; addrs = 0; other = 0 }
	inrep {
		line[++nl] = $0
		if (match($0, / to 0x[0-9a-f]+ of [0-9]+ bytes/)) {
			a = substr($0, RSTART + 6)
			sub(/ .*/, "", a)
			addrs++
			if (!in_latch(norm(a)))
				other = 1
		}
		if ($0 ~ /^=+$/ && nl > 1) {
			if (!addrs || other || !nr)
				for (i = 1; i <= nl; i++)
					print line[i]
			inrep = 0
		}
		next
	}
	{ print }
	END { if (inrep) for (i = 1; i <= nl; i++) print line[i] }'
}

# drop_kcsan_titled ERE: drop the KCSAN reports, whole (to their closing
# "====" line), whose title is "BUG: KCSAN: data-race in " and a match of
# ERE (alternatives of "a / b" pairs).
drop_kcsan_titled() {
	awk -v titles="$1" '
	$0 ~ ("BUG: KCSAN: data-race in (" titles ")$") { skip = 1 }
	skip {
		if ($0 ~ /^=+$/)
			skip = 0
		next
	}
	{ print }'
}

# Not a splat of ours: KCSAN's "data-race in alloc_pid / copy_process".
# alloc_pid() counts a new pid in its namespace's pid_allocated under
# pidmap_lock (kernel/pid.c); copy_process() tests that word's
# PIDNS_ADDING bit without it (kernel/fork.c, "Don't start children in
# a dying pid namespace"), under the parent's siglock only. The increment
# changes the count in the low bits, never PIDNS_ADDING (bit 31), which
# only disable_pid_allocation() clears, under the same lock as ever, when
# the namespace's init dies: a plain read racing a ++ of other bits, the
# kernel's own, seen when several CPUs fork at once (tring's
# toggle_under_load does, on debug-6.1-smp4). Those reports, whole, go.
# KCSAN's unwinder sometimes names the reading side "mark_lock" (every
# frame of its stack the same mark_lock+0x86, lockdep's, while the write
# is alloc_pid()'s): "data-race in alloc_pid / mark_lock", the same race.
drop_pid_allocated_reports() {
	drop_kcsan_titled 'alloc_pid / copy_process|copy_process / alloc_pid|alloc_pid / mark_lock|mark_lock / alloc_pid'
}

# Not a splat of ours: KCSAN's "data-race in rb_wakeups /
# rb_get_reader_page", in ftrace's ring buffer (kernel/trace/
# ring_buffer.c). Its reader swaps cpu_buffer->reader_page in
# rb_get_reader_page() under the reader lock; its writers' rb_wakeups(),
# after every commit, compare that pointer with the commit page without
# the lock, to decide on a wakeup: a plain read racing the swap, by
# design, in 6.1. tring never touches ftrace's buffers; make check's
# benchmark smoke does (tring_bench.ko's ftrace writer in a kworker,
# beside the splice reader: seen in debug-6.1's bench_smoke). KCSAN's
# unwinder names the reading side (ftrace's writer) "mark_lock" there
# (every frame the same mark_lock+0x86, as for alloc_pid above). Those
# reports, whole, go.
drop_reader_page_reports() {
	drop_kcsan_titled '(rb_wakeups|mark_lock) / rb_get_reader_page|rb_get_reader_page / (rb_wakeups|mark_lock)'
}

# Not a splat of ours: the WARNING that ftrace's ring buffer gives when
# its reader has waited one second for a writer (kernel/trace/
# ring_buffer.c, rb_get_reader_page(): "The writer is not moving
# forward?", RB_WARN_ON(nr_loops == USECS_WAIT)). The reader swaps in a
# page a writer on another CPU has just overrun, and spins until that
# writer, preemption off, puts the page's write index back. In a guest
# under software emulation on a loaded host, that writer's vCPU can be
# kept off the host's CPUs for a second (hrtimer: "interrupt took
# 72623971 ns" is in our logs; CI's run of stop 47 gave the WARNING
# once in debian-6.1's bench_smoke, every test passing). tring's own
# reader never waits for a writer. Only the peer readers that make
# check runs are let through, by the task the report names: the
# benchmark's ftrace_read (splice and mmap), its in-kernel reader
# (tring_bench_reader, "tring_bench_rea" as a comm) and trace-cmd's
# readers in the race. rb_get_reader_page()'s two other WARNINGs
# (more than three tries; no reader page) cannot be told from this one
# by their text: from those tasks they go too, from any other task they
# count. Each report goes whole, to its "end trace" line.
drop_peer_reader_waits() {
	awk '
	function flush(   i) {
		for (i = 1; i <= nl; i++)
			print line[i]
		inwarn = 0
	}
	/WARNING: CPU: [0-9]+ (UID: [0-9]+ )?PID: [0-9]+ at / {
		if (inwarn)
			flush()
		if ($0 ~ / at kernel\/trace\/ring_buffer\.c:[0-9]+ rb_get_reader_page\+/) {
			inwarn = 1
			nl = 0
			peer = 0
		}
	}
	inwarn {
		line[++nl] = $0
		# (6.10 and later print "CPU: 1 UID: 0 PID: ...".)
		if ($0 ~ /CPU: [0-9]+ (UID: [0-9]+ )?PID: [0-9]+ Comm: (ftrace_read|tring_bench_rea|trace-cmd) /)
			peer = 1
		if ($0 ~ /---\[ end trace/) {
			if (!peer)
				flush()
			inwarn = 0
		}
		next
	}
	{ print }
	END { if (inwarn) flush() }'
}

# With SPLAT_ALLOW_ALLOC_FAILURES=1, drop the stack dumps (from "Call
# Trace:" to "</TASK>") that the page allocator prints when an allocation
# fails (warn_alloc()): in a run that injects allocation failures they
# report the failures injected, not a problem.
drop_alloc_failures() {
	if [ "${SPLAT_ALLOW_ALLOC_FAILURES:-0}" != 1 ]; then
		cat
		return
	fi
	awk '
	function flush(   i) {
		if (!alloc)
			for (i = 1; i <= nl; i++)
				print line[i]
		intrace = 0
	}
	/Call Trace:/ { if (intrace) flush(); intrace = 1; nl = 0; alloc = 0 }
	intrace {
		line[++nl] = $0
		if ($0 ~ / warn_alloc\+0x/)
			alloc = 1
		if ($0 ~ /<\/TASK>/)
			flush()
		next
	}
	{ print }
	END { if (intrace) { alloc = 0; flush() } }'
}

# With SPLAT_ALLOW_ALLOC_FAILURES=1, drop the kernel's own WARNING in
# event_define_fields() that the trace events core gives when a module's
# event cannot get its fields for lack of memory: the WARN_ON_ONCE(ret)
# after trace_define_field(), followed by its "error code is -12". A run
# that fails the allocations of a module's load (tring_faults loads
# tring_tp_a so) injects exactly that; any other error code counts.
drop_define_fields_enomem() {
	if [ "${SPLAT_ALLOW_ALLOC_FAILURES:-0}" != 1 ]; then
		cat
		return
	fi
	awk '
	function flush(   i) {
		for (i = 1; i <= nl; i++)
			print line[i]
		inwarn = 0
		ended = 0
	}
	/WARNING: .* at kernel\/trace\/trace_events\.c:[0-9]+ event_define_fields\+/ {
		if (inwarn)
			flush()
		inwarn = 1
		nl = 0
	}
	inwarn && ended {
		if ($0 == "error code is -12") {
			inwarn = 0
			ended = 0
			next
		}
		flush()
	}
	inwarn {
		line[++nl] = $0
		if ($0 ~ /---\[ end trace/)
			ended = 1
		next
	}
	{ print }
	END { if (inwarn) flush() }'
}

found=$(cat "$@" 2>/dev/null | tr -d '\r' | drop_latch_reports |
	drop_pid_allocated_reports | drop_reader_page_reports |
	drop_peer_reader_waits |
	drop_alloc_failures |
	drop_define_fields_enomem |
	grep -aE "$splat" | grep -avE "$benign")
if [ -n "$found" ]; then
	echo "$found"
	exit 1
fi
exit 0
