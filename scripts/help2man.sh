#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write a man page from a program's --help, its one source of truth.
#
# usage: help2man.sh PROGRAM SECTION VERSION >PAGE
#
# The --help text is laid out like a man page: section titles in capitals
# at the left margin, text indented by one tab, options as "-x, --long
# ARG" lines indented by one tab with their text by two. DESCRIPTION and
# OPTIONS become filled paragraphs and tagged options; every other
# section keeps its layout (no filling), as in the --help text.

set -euo pipefail
prog=$1
section=$2
version=$3
name=$(basename "$prog")

"$prog" --help | awk -v name="$name" -v section="$section" -v version="$version" '
function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.\047]/)
		s = "\\&" s
	return s
}
function endpre() { if (pre) { print ".fi"; pre = 0 } }
BEGIN {
	printf ".TH %s %s \"\" \"%s\" \"User Commands\"\n", toupper(name), section, version
}
/^[A-Z][A-Z ]*$/ {
	endpre()
	sec = $0
	print ".SH " sec
	filled = (sec == "NAME" || sec == "DESCRIPTION" || sec == "OPTIONS")
	first = 1
	next
}
filled && /^$/ { print ".PP"; next }
filled && sec == "OPTIONS" && /^\t-/ {
	line = $0; sub(/^\t/, "", line)
	print ".TP"
	print ".B " esc(line)
	next
}
filled && sec == "OPTIONS" && /^\t[^\t]/ && !first && last_tagged {
	print ".PP"
}
filled {
	line = $0; sub(/^\t+/, "", line)
	last_tagged = ($0 ~ /^\t\t/)
	first = 0
	print esc(line)
	next
}
{
	if (!pre && $0 == "")
		next
	if (!pre) { print ".nf"; pre = 1 }
	line = $0; sub(/^\t/, "", line)
	gsub(/\t/, "        ", line)
	print (line == "" ? "" : esc(line))
}
END { endpre() }
'
