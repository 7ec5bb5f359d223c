#!/bin/bash
# Times the builds of a module that a user of atomicx waits for, side by
# side in one run:
#
#   - cold: "go build ./..." plain, with -toolexec atomicx and with
#     "atomicx go build", each from the same go build cache, which holds
#     the standard library (a plain "go build std") and the atomicx runtime
#     (one instrumented build of a one-file module; with RUNTIME=cold, not
#     the runtime: the builds make it), nothing of the module;
#   - after a policy edit: each way of building once, then a rule for one
#     package (EDIT_PACKAGE) appended to the policy, and the build again,
#     timed, with the number of packages it compiles.
#
#	internal/buildbench/run.sh MODULE_DIR [rounds]
#
# MODULE_DIR is a module with an atomicheck.toml (it is copied, never
# changed); for example bbolt from the module proxy:
#
#	go mod download -json go.etcd.io/bbolt@v1.4.3   # prints its "Dir"
#	printf '[[rule]]\npackages = ["./..."]\nmode = "detect"\n' > atomicheck.toml
#
# It builds atomicx from the repository it is in. Times are wall clock,
# user and system seconds (/usr/bin/time).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mod=$1
rounds=${2:-3}
edit=${EDIT_PACKAGE:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$here/../.." && go build -o "$work/bin/atomicx" ./cmd/atomicx)
atomicx=$work/bin/atomicx
cp -r "$mod" "$work/m"
chmod -R u+w "$work/m"
export GOCACHE=$work/c ATOMICX_CACHE=$work/a
go build std
mkdir "$work/tiny"
printf 'module example.com/tiny\ngo 1.22\n' >"$work/tiny/go.mod"
printf 'package main\nfunc f() error { return nil }\nfunc main() { _ = f() }\n' >"$work/tiny/main.go"
printf '[[rule]]\npackages = ["./..."]\nmode = "detect"\n' >"$work/tiny/atomicheck.toml"
if [ "${RUNTIME:-}" = cold ]; then
	mkdir -p "$work/a"
else
	(cd "$work/tiny" && "$atomicx" go build -o /dev/null .)
fi
mv "$work/c" "$work/c0"
mv "$work/a" "$work/a0"
cd "$work/m"
build() {
	case $1 in
	plain) go build "${@:2}" ./... ;;
	toolexec) go build -toolexec "$atomicx" "${@:2}" ./... ;;
	front) "$atomicx" go build "${@:2}" ./... ;;
	esac
}
fresh() {
	rm -rf "$work/c" "$work/a"
	cp -r "$work/c0" "$work/c"
	cp -r "$work/a0" "$work/a"
}
for r in $(seq "$rounds"); do
	for mode in plain toolexec front; do
		fresh
		/usr/bin/time -f "cold $r $mode: wall %e s, user %U s, sys %S s" bash -c "$(declare -f build); atomicx=$atomicx; build $mode" 2>&1 >/dev/null | grep '^cold'
	done
done
[ -n "$edit" ] || exit 0
cp atomicheck.toml "$work/policy"
for mode in toolexec front; do
	fresh
	cp "$work/policy" atomicheck.toml
	build $mode >/dev/null 2>&1
	printf '\n[[rule]]\npackages = ["%s"]\nmode = "detect"\npanics = true\n' "$edit" >>atomicheck.toml
	start=$(date +%s.%N)
	n=$(build $mode -x 2>&1 | grep -c '/compile .* -p ' || true)
	echo "policy edit, $mode: wall $(echo "$(date +%s.%N) - $start" | bc) s, $n packages compiled"
done
