#!/bin/sh
# kernels/hw-settle.suite (issue 37's cases for an sm_90 GPU) against the
# emulator: every case line well formed; fpref gen makes its files (both
# engines agreeing on each d) and each d is the suite's fpref=; each alt=
# is what its alt-by= model gives; on A1 and A2 lines alt-by= names the
# class's trait, without it gives fpref=, and the floor spelling
# (alt-floor=) gives alt= too; kernels/settle-report reads results and
# names the answer given; and fpref gen refuses malformed case lines.
# POSIX sh; run by make check (no GPU, no nvcc).

top=$(cd "$(dirname "$0")/.." && pwd)
FPREF=${FPREF:-"$top/fpref"}
suite=$top/kernels/hw-settle.suite
report=$top/kernels/settle-report
tap_name=settle
. "$(dirname "$0")/tap.sh"

# ---- the suite's notes: one line per case, "KEY<TAB>INDEX<TAB>LABEL<TAB>FPREF<TAB>ALT<TAB>ALT-IS<TAB>ALT-BY<TAB>ALT-FLOOR",
# KEY the file's "MODEL IN OUT"; a malformed case becomes a line "BAD <TAB>why" ----
notes() { awk '
function note(key,    i) {
	for (i = 1; i <= NF; i++)
		if (index($i, key "=") == 1)
			return substr($i, length(key) + 2)
	return ""
}
{ sub(/#.*/, "") }
$1 == "dot" { key = $2 " " $3 " " $4; width = $4 == "float32" ? 8 : $4 == "float16" ? 4 : 0; n = 0; next }
$1 == "case" {
	n++
	f = note("fpref"); a = note("alt"); is = note("alt-is"); by = note("alt-by"); af = note("alt-floor")
	trait = $2 == "A1" ? "zero-c-aligns" : $2 == "A2" ? "zero-operand-aligns" : ""
	why = ""
	if ($2 !~ /^(N1|Z1|A1|A2|A3|F1)$/) why = "label " $2 " is not a class sm_90 settles"
	else if (index($0, "|") == 0) why = "no notes after |"
	else if (f !~ /^[0-9A-F]+$/ || length(f) != width) why = "fpref=" f " is not " width " hex digits"
	else if (a !~ /^[0-9A-F]+$/ || length(a) != width) why = "alt=" a " is not " width " hex digits"
	else if (f == a) why = "fpref= and alt= are the same answer: the case settles nothing"
	else if (is != "model" && is != "former") why = "alt-is=" is " (model or former)"
	else if (by != "none" && by !~ /^generic:[0-9]+:[0-9]+:(-?[0-9]+|none):(rtz|rne)(:[a-z-]+(,[a-z-]+)*)?$/) why = "alt-by=" by
	else if (trait != "" && by !~ ("[:,]" trait "(,|$)")) why = "alt-by=" by " does not name " trait
	else if (trait != "" && af !~ /^-?[0-9]+$/) why = "alt-floor=" af " (" $2 " needs the floor its trait implies)"
	else if (trait == "" && af != "") why = "alt-floor= on a " $2 " line (A1 and A2 only)"
	if (why != "") printf "BAD\t%s: case %d of %s: %s\n", FILENAME, n, key, why
	else printf "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", key, n, $2, f, a, is, by, af
}' "$1"; }
notes "$suite" >"$tmp/cases"
bad=$(grep '^BAD' "$tmp/cases" | cut -f2-)
tap_check "every case line well formed" "$([ -z "$bad" ] && echo 0 || echo 1)" "$bad"
# the A1 / A2 notes' own checks, on lines that break them
badnote() { # NAME EXPECTED-TEXT CASE-LINE
	printf 'dot h100-mma bfloat16 float32 cases:16\n%s\n' "$3" >"$tmp/notes.suite"
	tap_check "notes refused: $1" "$(notes "$tmp/notes.suite" | grep '^BAD' | grep -qF -- "$2" && echo 0 || echo 1)" "$(notes "$tmp/notes.suite")"
}
badnote "A1 without its trait" "does not name zero-c-aligns" \
	"case A1 a0=19C0 | fpref=00000001 alt=00000000 alt-is=model alt-by=generic:16:25:-126:rtz:nan-ones alt-floor=-126"
badnote "A2 naming A1's trait" "does not name zero-operand-aligns" \
	"case A2 a0=0000 | fpref=30800000 alt=00000000 alt-is=model alt-by=generic:16:25:-133:rtz:zero-c-aligns alt-floor=1"
badnote "A1 without alt-floor" "needs the floor" \
	"case A1 a0=19C0 | fpref=00000001 alt=00000000 alt-is=model alt-by=generic:16:25:-133:rtz:zero-c-aligns"
badnote "alt-floor on an N1 line" "A1 and A2 only" \
	"case N1 a0=7F80 | fpref=7FFFFFFF alt=7FC00000 alt-is=former alt-by=generic:16:25:-133:rtz:zero-positive alt-floor=-126"
classes=$(grep -v '^BAD' "$tmp/cases" | cut -f3 | sort -u | tr '\n' ' ')
tap_check "the suite holds N1, Z1, A1, A2, A3 and F1" "$([ "$classes" = "A1 A2 A3 F1 N1 Z1 " ] && echo 0 || echo 1)" "classes: $classes"

"$FPREF" gen --suite "$suite" --out-dir "$tmp/g" >"$tmp/gen.log" 2>&1
tap_check "fpref gen makes the suite's files (emulator and oracle agree on every d)" $? "$(cat "$tmp/gen.log")"

# The expansion of a case line, worked by hand: A1 on mma.sync bf16 is
# a0..a7 = 19C0, a8..a15 = +0, b0..b7 = 1980, b8..b15 = +0, c = +0.
want="19C0 19C0 19C0 19C0 19C0 19C0 19C0 19C0 0000 0000 0000 0000 0000 0000 0000 0000"
want="$want 1980 1980 1980 1980 1980 1980 1980 1980 0000 0000 0000 0000 0000 0000 0000 0000 00000000"
got=$(grep -v '^#' "$tmp/g/dot/h100-mma.bfloat16-float32.txt" | sed -n 2p | sed 's/ [^ ]*$//')
tap_check "a0..a7=19C0 b0..b7=1980 c=0 is the line written out" "$([ "$got" = "$want" ] && echo 0 || echo 1)" "got: $got"

# ---- each d is the suite's fpref=, each alt= its alt-by= model's ----
traits_known=$("$FPREF" dot --help | sed -n 's/.*--traits LIST.*of \(.*\) (docs.*/\1/p' | tr -d ' ')
generic() { # LINE FLOOR TRAITS: d of LINE's terms through alt-by='s generic model ($blk $frac $final $in $out)
	echo "$1" | sed 's/ [^ ]*$//' | "$FPREF" dot --model generic --block "$blk" --frac "$frac" --floor "$2" \
		--final "$final" ${3:+--traits "$3"} --in-format "$in" --out-format "$out" 2>&1 | awk '{print $NF}'
}
files=0
for f in "$tmp"/g/dot/*.txt; do
	files=$((files + 1))
	key=$(sed -n 's/^# formats \([^ ]*\) \([^ ]*\) -> \([^ ]*\)$/\1 \2 \3/p' "$f")
	name=$(basename "$f" .txt)
	in=$(echo "$key" | cut -d' ' -f2) out=$(echo "$key" | cut -d' ' -f3)
	grep -v '^#' "$f" >"$tmp/body"
	awk -F'\t' -v k="$key" '$1 == k' "$tmp/cases" >"$tmp/mine"
	n=$(wc -l <"$tmp/mine") lines=$(wc -l <"$tmp/body")
	tap_check "$name: one line per case ($n)" "$([ "$n" = "$lines" ] && [ "$n" -gt 0 ] && echo 0 || echo 1)" "$lines lines"
	i=0
	while IFS='	' read -r _ idx label fp alt is by af; do
		i=$((i + 1))
		line=$(sed -n "${i}p" "$tmp/body")
		d=$(echo "$line" | awk '{print $NF}')
		tap_check "$name case $idx ($label): fpref gives $fp" "$([ "$d" = "$fp" ] && echo 0 || echo 1)" "fpref gives $d"
		[ "$by" = none ] && continue
		spec=${by#generic:}
		IFS=: read -r blk frac floor final traits <<EOF
$spec
EOF
		unknown=
		for t in $(echo "$traits" | tr ',' ' '); do
			case ",$traits_known," in *",$t,"*) ;; *) unknown="$unknown $t" ;; esac
		done
		tap_check "$name case $idx ($label): $by names traits fpref dot knows" "$([ -z "$unknown" ] && echo 0 || echo 1)" "unknown:$unknown"
		got=$(generic "$line" "$floor" "$traits")
		tap_check "$name case $idx ($label): $by gives alt $alt" "$([ "$got" = "$alt" ] && echo 0 || echo 1)" "it gives $got"
		[ -n "$af" ] || continue
		# the trait is the whole difference, and the floor it implies on
		# this line is the same alternative
		rest=$(echo ",$traits," | sed 's/,zero-c-aligns,/,/; s/,zero-operand-aligns,/,/; s/^,//; s/,$//')
		got=$(generic "$line" "$floor" "$rest")
		tap_check "$name case $idx ($label): without its trait, $by gives fpref $fp" "$([ "$got" = "$fp" ] && echo 0 || echo 1)" "it gives $got"
		got=$(generic "$line" "$af" "$rest")
		tap_check "$name case $idx ($label): the floor spelling (floor $af, no trait) gives alt $alt too" "$([ "$got" = "$alt" ] && echo 0 || echo 1)" "it gives $got"
	done <"$tmp/mine"
done
tap_check "a file for every dot line of the suite" "$([ "$files" = "$(grep -c '^dot ' "$suite")" ] && echo 0 || echo 1)" "$files files"

# ---- settle-report: results that are fpref's, the alternative's, or neither ----
"$report" "$tmp"/g/dot/*.txt >"$tmp/r1" 2>&1
rc=$?
n=$(grep -c "^class .*: fpref's row" "$tmp/r1")
tap_check "settle-report: fpref's own answers are fpref's row in all six classes" "$([ $rc = 0 ] && [ "$n" = 6 ] && echo 0 || echo 1)" "$(cat "$tmp/r1")"
mkdir "$tmp/alt"
for f in "$tmp"/g/dot/*.txt; do
	key=$(sed -n 's/^# formats \([^ ]*\) \([^ ]*\) -> \([^ ]*\)$/\1 \2 \3/p' "$f")
	awk -F'\t' -v k="$key" '$1 == k { print $5 }' "$tmp/cases" >"$tmp/alts"
	awk 'NR == FNR { alt[FNR] = $0; next } /^#/ { print; next } { i++; $NF = alt[i]; print }' "$tmp/alts" "$f" >"$tmp/alt/$(basename "$f")"
done
"$report" "$tmp"/alt/*.txt >"$tmp/r2" 2>&1
rc=$?
models=$(grep "^class .*the independent model's (alt) ([0-9]* of [0-9]* lines): change the row" "$tmp/r2" | cut -c7-8 | sort | tr '\n' ' ')
former=$(grep "^class .*fpref's former row (alt)" "$tmp/r2" | cut -c7-8 | sort | tr '\n' ' ')
tap_check "settle-report: the alternatives are the model's in A1 A2 F1, the former row's in A3 N1 Z1" \
	"$([ $rc = 0 ] && [ "$models" = "A1 A2 F1 " ] && [ "$former" = "A3 N1 Z1 " ] && echo 0 || echo 1)" "$(cat "$tmp/r2")"
# one F1 line the alternative's, the other neither: mixed
third() { # FILE D: the file with its third body line's d replaced
	awk -v d="$2" '/^#/ { print; next } { if (++i == 3) $NF = d; print }' "$1"
}
third "$tmp/g/dot/h100-mma.float16-float16.txt" 0001 >"$tmp/mixed-a.txt"
third "$tmp/g/dot/h100-wgmma.float16-float16.txt" 3C00 >"$tmp/mixed-b.txt"
"$report" "$tmp/mixed-a.txt" "$tmp/mixed-b.txt" >"$tmp/r3" 2>&1
tap_check "settle-report: F1 mixed (fpref 0, alt 1, neither 1)" "$(grep -q '^class F1: mixed: fpref 0, alt 1, neither 1' "$tmp/r3" && echo 0 || echo 1)" "$(cat "$tmp/r3")"
awk '/^#/ || ++i < 3' "$tmp/g/dot/h100-mma.float16-float16.txt" >"$tmp/short.txt"
"$report" "$tmp/short.txt" >"$tmp/r4" 2>&1
tap_check "settle-report: a file short of its cases, exit 1" "$([ $? = 1 ] && grep -q '2 lines for the 3 cases' "$tmp/r4" && echo 0 || echo 1)" "$(cat "$tmp/r4")"
sed 's/^# formats h100-mma /# formats ada /' "$tmp/g/dot/h100-mma.float16-float16.txt" >"$tmp/other.txt"
"$report" "$tmp/other.txt" >"$tmp/r5" 2>&1
tap_check "settle-report: a file of no case, exit 1" "$([ $? = 1 ] && grep -q 'no cases of ada float16 float16' "$tmp/r5" && echo 0 || echo 1)" "$(cat "$tmp/r5")"

# ---- fpref gen refuses malformed case lines, naming them ----
refuse() { # NAME EXPECTED-TEXT SUITE-BODY
	printf 'suite t\n%s\n' "$3" >"$tmp/bad.suite"
	"$FPREF" gen --suite "$tmp/bad.suite" --out-dir "$tmp/bad" >"$tmp/out" 2>&1
	rc=$?
	tap_check "refused: $1" "$([ $rc != 0 ] && grep -qF -- "$2" "$tmp/out" && echo 0 || echo 1)" "exit $rc: $(cat "$tmp/out")"
}
refuse "a case with no cases line" "a 'case' line follows" "case X1 a0=3C00 b0=3C00"
refuse "a case after a random line" "a 'case' line follows" "dot h100 float16 float32 random:4:16
case X1 a0=3C00"
refuse "cases:K for two models" "names one model, one input and one output" "dot h100,a100 float16 float32 cases:16"
refuse "cases:K without cases" "without 'case' lines" "dot h100 float16 float32 cases:16"
refuse "an index past K" "'a16=3C00' is not aI=HEX" "dot h100 float16 float32 cases:16
case X1 a16=3C00"
refuse "a reversed run" "'a3..a1=3C00' is not aI=HEX" "dot h100 float16 float32 cases:16
case X1 a3..a1=3C00"
refuse "a run naming the other operand" "'a0..b3=3C00' is not aI=HEX" "dot h100 float16 float32 cases:16
case X1 a0..b3=3C00"
refuse "a term named twice" "'a3=3C00' names a term named before" "dot h100 float16 float32 cases:16
case X1 a0..a7=3C00 a3=3C00"
refuse "a pattern wider than the format" "'b0=13C00': not a pattern of float16" "dot h100 float16 float32 cases:16
case X1 b0=13C00"
refuse "TF32's padding bits" "'a0=3F800001': not a pattern of tf32" "dot h100 tf32 float32 cases:8
case X1 a0=3F800001"
refuse "no label" "the label first" "dot h100 float16 float32 cases:16
case a0=3C00"
refuse "a word that is no term" "'d=3C00' is not aI=HEX" "dot h100 float16 float32 cases:16
case X1 d=3C00"
words="case X1"
i=0
while [ $i -lt 200 ]; do words="$words c=0"; i=$((i + 1)); done
refuse "a line of more words than a suite reads" "more than 192 words" "dot h100 float16 float32 cases:16
$words"
tap_end
