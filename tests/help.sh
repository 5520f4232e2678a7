#!/bin/sh
# The help of fpref, its man page, its completion and the command reference's
# summary (docs/command.md), all made from (or compared with) the option tables of the
# subcommands: every option the parser accepts (fpref --list-options CMD,
# printed from the table the parser reads) must be in the text people read.
# Then the options that used to do nothing silently.  POSIX sh; uses grep,
# sed, cmp.
FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
src=${srcdir:-$(dirname "$0")/..}
tap_name=help
. "$(dirname "$0")/tap.sh"

# expect NAME STATUS CMD...: CMD exits with STATUS; stdout in $tmp/out, stderr in $tmp/err.
expect() {
	_name=$1
	_want=$2
	shift 2
	"$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	_rc=$?
	if [ "$_rc" = "$_want" ]; then
		ok "$_name"
	else
		failed "$_name"
		printf '#   exit status %s, expected %s\n' "$_rc" "$_want"
		sed 's/^/#   | /' "$tmp/err" | head -n 5
	fi
}

# has NAME FILE STRING: FILE holds the fixed STRING.
has() {
	if grep -F -e "$3" "$2" >/dev/null; then
		ok "$1"
	else
		failed "$1"
		printf '#   no %s in %s\n' "$3" "${2##*/}"
	fi
}

# bad NAME CMD... : exit 2, nothing on stdout, the message names the subcommand.
bad() {
	_name=$1
	shift
	expect "$_name: exit status 2" 2 "$FPREF" "$@"
	if [ -s "$tmp/out" ]; then failed "$_name: nothing on stdout"; else ok "$_name: nothing on stdout"; fi
	has "$_name: the message names the subcommand" "$tmp/err" "fpref $1"
}

commands=$("$FPREF" --list-commands)
[ -n "$commands" ] && ok 'fpref --list-commands' || failed 'fpref --list-commands'

expect 'fpref --help' 0 "$FPREF" --help
cp "$tmp/out" "$tmp/top"
has 'fpref --help: usage' "$tmp/top" 'usage: fpref COMMAND'
expect 'fpref -h' 0 "$FPREF" -h
cmp -s "$tmp/out" "$tmp/top" && ok 'fpref -h = fpref --help' || failed 'fpref -h = fpref --help'
expect 'fpref help' 0 "$FPREF" help
cmp -s "$tmp/out" "$tmp/top" && ok 'fpref help = fpref --help' || failed 'fpref help = fpref --help'
expect 'fpref --version' 0 "$FPREF" --version
grep -E '^fpref [0-9]+\.[0-9]+' "$tmp/out" >/dev/null && ok 'fpref --version: fpref VERSION' || failed 'fpref --version: fpref VERSION'
expect 'fpref with no command: exit 2' 2 "$FPREF"
expect 'fpref help nosuch: exit 2' 2 "$FPREF" help nosuch

for c in $commands; do
	expect "$c --help" 0 "$FPREF" "$c" --help
	cp "$tmp/out" "$tmp/help"
	[ -s "$tmp/err" ] && failed "$c --help: nothing on stderr" || ok "$c --help: nothing on stderr"
	head -n 1 "$tmp/help" | grep -E "^usage: fpref $c( |\$)" >/dev/null && ok "$c --help: usage line" ||
		failed "$c --help: usage line"
	expect "$c -h" 0 "$FPREF" "$c" -h
	cmp -s "$tmp/out" "$tmp/help" && ok "$c -h = $c --help" || failed "$c -h = $c --help"
	expect "help $c" 0 "$FPREF" help "$c"
	cmp -s "$tmp/out" "$tmp/help" && ok "help $c = $c --help" || failed "help $c = $c --help"
	# two examples, each a command line
	n=$(sed -n '/^examples:$/,$p' "$tmp/help" | grep -c '^  .*fpref ')
	[ "$n" = 2 ] && ok "$c --help: two examples" || failed "$c --help: two examples (found $n)"
	"$FPREF" --list-options "$c" >"$tmp/opts"
	while read -r opt arg; do
		# in the subcommand's help with its value, in fpref --help, in the man page
		# (after its short form where it has one: "  -o, --out-file FILE")
		if [ -n "$arg" ]; then want="$opt $arg"; else want="$opt "; fi
		if grep -F -e "  $want" -e "  -${opt#--?}, $want" "$tmp/help" >/dev/null 2>&1 ||
			grep -E -e "^  -[a-z], " "$tmp/help" | grep -F -e ", $want" >/dev/null; then
			ok "$c --help lists $opt"
		else
			failed "$c --help lists $opt"
			printf '#   no %s in help\n' "$want"
		fi
		grep -E -e "(^| )$opt( |\$)" "$tmp/top" >/dev/null && ok "fpref --help lists $c $opt" ||
			failed "fpref --help lists $c $opt"
		# an unknown option next to it is refused by name
	done <"$tmp/opts"
	# a value option without its value, and an unknown option: refused, naming both
	first=$(grep ' ' "$tmp/opts" | head -n 1 | cut -d' ' -f1)
	if [ -n "$first" ]; then
		bad "$c $first without a value" "$c" "$first"
		has "$c $first without a value: names $first" "$tmp/err" "$first"
	fi
	bad "$c --no-such-option" "$c" --no-such-option
	has "$c --no-such-option: names it" "$tmp/err" "'--no-such-option'"
done

# ---- the man page: generated from the same tables, committed, compared ----
"$FPREF" --help-man >"$tmp/fpref.1"
if cmp -s "$tmp/fpref.1" "$src/fpref.1"; then
	ok 'fpref.1 is what fpref --help-man makes'
else
	failed 'fpref.1 is what fpref --help-man makes (run: make update-help)'
	diff "$src/fpref.1" "$tmp/fpref.1" | head -n 10 | sed 's/^/#   | /'
fi
for c in $commands; do
	has "fpref.1 has $c" "$tmp/fpref.1" ".SS \"$(printf '%s' "$c" | sed 's/-/\\-/g')\"" # roff writes - as \-
done
"$FPREF" --list-options convert | cut -d' ' -f1 | sed 's/-/\\-/g' >"$tmp/manopts"
while read -r opt; do
	has "fpref.1 lists convert $opt" "$src/fpref.1" "\\fB$opt\\fR"
done <"$tmp/manopts"

# ---- docs/command.md's summary is fpref --help, verbatim ----
sed -n '/^<!-- fpref --help/,/^<!-- end of fpref --help -->/p' "$src/docs/command.md" | sed '1,2d;$d' | sed '$d' >"$tmp/readme"
if cmp -s "$tmp/readme" "$tmp/top"; then
	ok "docs/command.md's summary is fpref --help"
else
	failed "docs/command.md's summary is fpref --help (run: make update-help)"
	diff "$tmp/readme" "$tmp/top" | head -n 10 | sed 's/^/#   | /'
fi

# ---- bash completion, from the command's own lists ----
comp=$src/tools/completion/fpref
if command -v bash >/dev/null 2>&1; then
	if bash -n "$comp"; then ok 'completion: bash -n'; else failed 'completion: bash -n'; fi
	# complete WORDS...: what the completion offers for the last word
	complete_words() {
		PATH=$(dirname "$FPREF"):$PATH bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _fpref
			printf "%s\n" "${COMPREPLY[@]}"' sh "$comp" "$@"
	}
	complete_words fpref con >"$tmp/c"
	has 'completion: subcommands' "$tmp/c" convert
	complete_words fpref convert --ro >"$tmp/c"
	has 'completion: options' "$tmp/c" --round
	complete_words fpref convert --to float8_e4 >"$tmp/c"
	has 'completion: format names' "$tmp/c" float8_e4m3fn
	complete_words fpref convert --round r >"$tmp/c"
	has 'completion: choices' "$tmp/c" rtz
else
	printf '# skip: no bash for the completion\n'
fi

# ---- options that would do nothing are errors ----
bad '--sr-bits without --round sr' convert --to e4m3 --sr-bits 5 1.3
has '--sr-bits without --round sr: names the token' "$tmp/err" "'5'"
bad '--engine with decimal values' convert --to e4m3 --engine ref 1.3
has '--engine with decimal values: names the token' "$tmp/err" '--engine ref'
bad '--sat with --overflow ieee' convert --to e4m3 --sat --overflow ieee 465
has '--sat with --overflow ieee: names the token' "$tmp/err" "'--overflow ieee'"
bad 'op --numbers in batch mode' op add --fmt f16 --numbers
has 'op --numbers in batch mode: names the token' "$tmp/err" '--numbers'
bad 'a stray word after gen' gen --list stray
has 'a stray word after gen: names it' "$tmp/err" "'stray'"
bad 'a scaler option for another scaler' lossscale --scaler apex --hysteresis 2 --overflow-at 1 --steps 2
has 'a scaler option for another scaler: names it' "$tmp/err" '--hysteresis'
bad 'probe infer with a gen option' probe infer --results r --k 4
has 'probe infer with a gen option: names it' "$tmp/err" '--k'
bad 'a flag given a value' formats --json=yes
has 'a flag given a value: names it' "$tmp/err" '--json=yes'
# ... and what still works: --sr-bits with sr, --engine with --from, --sat --overflow sat
expect '--round sr --sr-bits' 0 "$FPREF" convert --to e4m3 --round sr --sr-bits 0 1.3
expect '--engine ref --from' 0 "$FPREF" convert --from f16 --to e4m3 --engine ref 3C00
expect '--sat --overflow sat' 0 "$FPREF" convert --to e4m3 --sat --overflow sat 465

# ---- one wording for a missing file, whichever subcommand reads it ----
missing=$tmp/no-such-file
for args in "verify $missing" "verify $src/golden/vectors/add/float16.rne.txt $missing" \
	"gemm --model exact --in f16 --a $missing --b $missing" "probe infer --results $missing" \
	"quantize --scheme tensor --in $missing --codes $tmp/c.npy --scales $tmp/s.npy" \
	"lossscale --scaler pytorch --steps-file $missing"; do
	set -- $args
	bad "$1 of a missing file" $args
	has "$1 of a missing file: '$missing: No such file or directory'" "$tmp/err" "$missing: No such file or directory"
done

# ---- case: --round RNE is rne, as E4M3 is e4m3 ----
"$FPREF" convert --to e4m3 --round rtz 465 >"$tmp/lower" 2>&1
for spelling in RTZ Rtz; do
	"$FPREF" convert --to E4M3 --round $spelling 465 >"$tmp/out" 2>&1
	cmp -s "$tmp/out" "$tmp/lower" && ok "--round $spelling = rtz" || failed "--round $spelling = rtz"
done
"$FPREF" convert --to e4m3 --overflow SAT 465 >"$tmp/out" 2>&1
"$FPREF" convert --to e4m3 --sat 465 >"$tmp/lower" 2>&1
cmp -s "$tmp/out" "$tmp/lower" && ok '--overflow SAT = --sat' || failed '--overflow SAT = --sat'
# --name=value as --name value
"$FPREF" convert --to=e4m3 --round=rtz 465 >"$tmp/out" 2>&1
"$FPREF" convert --to e4m3 --round rtz 465 >"$tmp/lower" 2>&1
cmp -s "$tmp/out" "$tmp/lower" && ok '--to=e4m3 --round=rtz' || failed '--to=e4m3 --round=rtz'
tap_end
