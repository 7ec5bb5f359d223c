#!/bin/sh
# Runs a detection campaign on testdata/store, whose test reaches every
# injection point near its start and then runs for EARLY_ROUNDS rounds,
# with and without early stop, for several test lengths, and prints one
# line per campaign: rounds, test time, experiments, campaign wall time.
#
#	internal/earlybench/run.sh [rounds...]
#
# It builds atomicx from the repository it is in. DETECT_FLAGS adds flags
# to every campaign (e.g. -max-occurrences 10 for more experiments).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$here/../.." && go build -o "$work/bin/atomicx" ./cmd/atomicx)
PATH=$work/bin:$PATH
export PATH
cp -r "$here/testdata/store" "$work/store"
cd "$work/store"
go test -c -o "$work/store.test" . >/dev/null
# A first campaign fills the build cache, so that none of the measured ones
# builds more than the others.
EARLY_ROUNDS=0 atomicx detect -journal "$work/warm" ./... >/dev/null 2>&1
printf '%-8s %-10s %-12s %-12s %-14s %-14s %s\n' rounds test_s experiments absorbed early_stop_s no_early_stop_s ratio
for rounds in ${*:-0 10000 40000 160000}; do
	export EARLY_ROUNDS=$rounds
	start=$(date +%s.%N)
	"$work/store.test" -test.run '^TestLong$' >/dev/null
	test_s=$(echo "$(date +%s.%N) - $start" | bc)
	for mode in early full; do
		flag=
		[ "$mode" = full ] && flag=-no-early-stop
		rm -rf "$work/$mode"
		start=$(date +%s.%N)
		atomicx detect $flag ${DETECT_FLAGS:-} -journal "$work/$mode" ./... >"$work/$mode.txt" 2>"$work/$mode.err"
		eval "${mode}_s=$(echo "$(date +%s.%N) - $start" | bc)"
	done
	exps=$(grep -c '"kind":"experiment"' "$work/early/journal.jsonl" || true)
	absorbed=$(grep -c '"status":"absorbed"' "$work/early/journal.jsonl" || true)
	printf '%-8s %-10.3f %-12s %-12s %-14.2f %-14.2f %.1f\n' "$rounds" "$test_s" "$exps" "$absorbed" "$early_s" "$full_s" "$(echo "$full_s / $early_s" | bc -l)"
done
