#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/jrow.py's test: each typed field gives the JSON value it says,
# and a value that is not of its type stops it (status 2, the field
# named). Exits 1 on the first difference, printing it.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# same EXPECTED FIELD...: jrow.py FIELD... prints EXPECTED, exactly
same() {
	local want=$1 got
	shift
	got=$(/usr/bin/python3 "$top/scripts/jrow.py" "$@") || {
		echo "jrow.py $* failed"
		exit 1
	}
	[ "$got" = "$want" ] || {
		printf 'jrow.py %s\n  gave %s\n  want %s\n' "$*" "$got" "$want"
		exit 1
	}
}

# refused FIELD...: jrow.py FIELD... exits 2, naming the last field
refused() {
	local err rc
	err=$(/usr/bin/python3 "$top/scripts/jrow.py" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc != 2 ] || [[ $err != *"${*: -1}"* ]]; then
		echo "jrow.py $* was not refused as it should (status $rc): $err"
		exit 1
	fi
}

same '{"a":"x y","b":"say \"hi\" \\ there"}' a='x y' b='say "hi" \ there'
same '{"n":8,"f":12.5,"e":1500.0,"neg":-3}' n:n=8 f:n=12.5 e:n=1.5e3 neg:n=-3
same '{"a":null,"b":null,"c":null}' a:n= b:n=- c:n=null
same '{"l":[1,2,3.5],"m":[],"ci":[null,null]}' l:nl='1, 2 3.5' m:nl= ci:nl='- -'
same '{"t":true,"m":true,"f":false,"nm":false}' t:b=true m:b=met f:b=false nm:b=not
same '{"k":"6.1","ns":{"a":1,"b":{"c":null}},"z":0}' k=6.1 ns.a:n=1 ns.b.c:n= z:n=0
printf '%s\n' '{"x":1}' '' '{"y":[2]}' >"$work/rows"
same '{"r":[{"x":1},{"y":[2]}]}' r:rows="$work/rows"
refused ok:n=1 bad:n=12ms
refused bad:n=nan
refused bad:nl='1 two'
refused bad:b=maybe
refused bad:q=1
refused novalue
refused a=1 a.b:n=2
echo '{"x":' >"$work/broken"
refused r:rows="$work/broken"
echo "jrow.py: every case as expected"
