#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The small real workload "make run" traces: processes forking, exec'ing
# and exiting, file I/O on tmpfs, pipes, sleeps, and markers.

M=/sys/kernel/debug/tring/trace_marker

echo "make run: workload begins" >$M
for i in 1 2 3 4; do
	(dd if=/dev/zero of=/tmp/f$i bs=4k count=64 2>/dev/null &&
		md5sum /tmp/f$i >/dev/null) &
done
wait
echo "make run: four writers done" >$M
seq 1 5000 | sort -r | uniq | wc -l >/dev/null
ls -R /sys/kernel/debug/tring >/dev/null
sleep 0.3
find / -xdev -type f 2>/dev/null | head -n 200 | xargs cat >/dev/null 2>&1
rm -f /tmp/f*
echo "make run: workload ends" >$M
