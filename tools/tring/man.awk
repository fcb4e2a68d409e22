# SPDX-License-Identifier: GPL-2.0
#
# tring-record --help | awk -f man.awk > tring-record.1
#
# The usage text is the one source of truth; this turns its layout into
# roff: a line in capitals is a section; in a section, a line indented
# once is running text, or a term (an option, a file, an exit status)
# when an indented description follows it on the same line after two
# spaces or on the next lines; lines indented by a tab and two spaces
# more are kept as they are (the summary's keys), and EXAMPLES too;
# each line of SYNOPSIS is a line of its own.

function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.']/)
		s = "\\&" s
	return s
}

function body(s) {
	sub(/^[\t ]+/, "", s)
	return esc(s)
}

function verbatim(on) {
	if (on != nofill)
		print on ? ".nf" : ".fi"
	nofill = on
}

{ line[NR] = $0 }

END {
	print ".TH TRING-RECORD 1 \"\" \"tring\" \"User Commands\""
	for (i = 1; i <= NR; i++) {
		s = line[i]
		next_indented = line[i + 1] ~ /^\t\t/
		if (s ~ /^[A-Z][A-Z ]*$/) {
			verbatim(0)
			section = s
			print ".SH " s
		} else if (s == "") {
			verbatim(0)
			print ".PP"
		} else if (section == "SYNOPSIS") {
			# One form per line, never filled into one paragraph.
			verbatim(0)
			print body(s)
			print ".br"
		} else if (s ~ /^\t\t  / || section == "EXAMPLES") {
			verbatim(1)
			sub(/^\t\t  /, "", s)
			sub(/^\t/, "", s)
			print esc(s)
		} else if (s ~ /^\t[^\t ]/ && section != "DESCRIPTION" &&
			   (s ~ /[^ ]  +[^ ]/ || next_indented) &&
			   (section != "OPTIONS" || s ~ /^\t-/)) {
			verbatim(0)
			sub(/^\t/, "", s)
			term = s
			desc = ""
			if (match(s, /  +/)) {
				term = substr(s, 1, RSTART - 1)
				desc = substr(s, RSTART + RLENGTH)
			}
			print ".TP"
			print "\\fB" esc(term) "\\fR"
			if (desc != "")
				print esc(desc)
		} else {
			verbatim(0)
			print body(s)
		}
	}
	verbatim(0)
}
