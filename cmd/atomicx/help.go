package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/atomicx/atomicx/docs"
)

const usage = `atomicx finds Go functions that are not failure atomic: functions that
return an error or panic after having changed part of the state of their
receiver or arguments, so that a caller that goes on after the error works
on a half-updated object.

It works at build time, as a -toolexec program of the go command. The
packages that atomicheck.toml selects, third-party ones included, are
rewritten while they are compiled; no file on disk is edited, go.mod and
go.sum are left alone, and the build cache keeps working.

Usage:

	go build -toolexec atomicx [build flags] [packages]
	go test  -toolexec atomicx [build and test flags] [packages]
	atomicx go build|install|run|test [flags] [packages]
	atomicx <command> [arguments]

	atomicx go runs the go command with atomicx as -toolexec, and with
	build cache keys of their own for the instrumented packages only:
	the standard library and everything else the policy leaves alone
	come from the cache of plain builds, and a policy edit recompiles
	only the packages whose instrumentation it changes.

Commands:

	detect [flags] [packages]   run a detection campaign over the packages' tests
	                            and report each function's verdict
	handlers [flags] [packages] test the packages' error handlers: skip each
	                            handled call, yield an error the handler takes,
	                            and report whether the tests still pass
	perturb [flags] [packages]  fail each point the tests reach once, then always,
	                            and report which failures they survive
	report [-format f] [-o file] [journal]
	                            report a campaign again from its journal
	plan -o dir [flags] [packages]
	                            build and profile once; write a campaign's runs
	                            as a plan for shards to run
	run -shard K/N dir          run the Kth of N shares of a plan
	merge dir [journal...]      combine the shards' journals into the report
	reproduce [-journal dir] function
	                            run again the test and fault that showed a
	                            function non-atomic, as its campaign did
	vet [-stats] [-confirm] [packages]
	                            report resources (files, locks, connections, ...)
	                            left open on an error path; exits 1 if any;
	                            -confirm runs the tests to confirm each path
	policy check [packages]     show which packages the policy instruments, and how
	policy suggest [report]     print the policy rules that mask the pure
	                            non-atomic functions a campaign found
	version                     print atomicx's version
	help [topic]                this text; topics: the pages of the
	                            documentation (detect, reports, handlers,
	                            perturb, masking, policy, vet, comp,
	                            environment, how-it-works) and env

Detection campaigns:

	atomicx detect [-jobs N] [-timeout 1m] [-max-occurrences 3] [-journal DIR]
	               [-resume] [-format text|json|html|sarif|github] [-o FILE] [packages]
	atomicx report [-format text|json|html|sarif|github] [-o FILE] [journal]

	detect builds the packages' tests instrumented, runs each test once to
	learn which injection points it reaches, then once per point with that
	one fault injected, and reports the functions as pure non-atomic (fix
	or mask them), dependent non-atomic (atomic once the non-atomic
	functions that failed inside them are masked), atomic or unknown
	(cannot fail, not made to fail, not snapshotted, or over budget).
	Every run is appended to a journal as it ends; -resume goes on from
	there, and report renders it again. Each run runs in a private copy
	of the package's module, reset before the run: tests that write
	fixed relative paths never see each other's files, and nothing they
	write reaches the source tree.

	-format text prints file:line:col lines; json writes a versioned
	document; html writes one self-contained page with sortable tables and
	the source of each non-atomic function; sarif writes a SARIF 2.1.0 log
	for GitHub code scanning; github writes the same results as GitHub
	Actions workflow annotations (::error file=…,line=…::…), for CI
	without code scanning. A report is the same from any directory:
	sources are found where the campaign ran, positions are relative to the
	module's root, and SARIF paths to the repository's root (%SRCROOT%):

		atomicx detect -format sarif -o atomicx.sarif ./...
		atomicx report -format html -o report.html

	-o FILE writes the report to FILE instead of standard output.

	-cover builds the tests with coverage and adds to the report what the
	injected faults ran that the tests alone did not: statements, and
	statements of error paths (error checks, deferred functions, recover
	blocks), per package and function, with the newly covered lines.

	Each non-atomic function comes with two commands to paste in the
	module's directory: atomicx reproduce, which runs the test again with the
	campaign's policy, build flags and atomicx binary and prints the
	function's verdicts, and the go test line it runs:

		atomicx reproduce -journal DIR 'example.com/m.(*T).M'

Perturbation campaigns:

	atomicx perturb [detect's flags] [-tests-per-point N] [-oracle SCRIPT] [packages | -exec SCRIPT package]

	perturb runs each injection point the tests reach twice, with every
	test that reaches it (-tests-per-point N: the N that reach the fewest
	points): failing its first reach (one-shot,
	ATOMICX_INJECT=error:1:SITE) and every reach (always,
	ATOMICX_INJECT=error:always:SITE). A point is fragile when a test's
	one-shot run fails (test failure, crash or hang), sensitive when a
	test's always run does, immunized when every test passes both. Each
	run runs on one thread, a test's parallel subtests one at a time
	(GOMAXPROCS=1, -test.parallel=1), so that the first reach is the same
	reach in every run. For each test it names
	the function that handled the one-shot failure (the first caller that
	did not fail too, by the calls in progress that the run logs with its
	injection) and the distance to it, and validates the functions that
	passed the one-shot or the always failure on as failure-oblivious
	candidates, in every test: both runs again with
	ATOMICX_OBLIVIOUS=SITE (the function swallows its failures), then
	with ATOMICX_MASK=SITE too (rolled back first). -oracle, with -exec,
	runs a domain check after each run with ATOMICX_BINARY,
	ATOMICX_EXIT_STATUS and ATOMICX_OUTPUT (a file with the script's
	output); a run passes when both exit 0. Sharded: atomicx plan
	-question perturb.

		atomicx perturb -run 'TestParse' -format html -o perturb.html ./...

Error handlers:

	atomicx handlers [detect's flags] [-journal DIR] [-resume]
	                 [-format text|json|html|sarif|github] [-o FILE] [packages]

	handlers tests the error handlers of the packages against their tests
	(short-circuit testing). A handler is one arm of the check of a call's
	error, right after the call or in the if's or switch's header:
	err != nil, errors.Is(err, X), errors.As(err, &t), err == X, as if
	conditions or cases of a switch without tag, or a case of a type
	switch on the error; the call is its region. A deferred recover block
	(defer func() { if r := recover(); r != nil { … } }()) is a handler
	whose region is the rest of the function, armed with a panic. A
	profile run per test records, per handler, whether the test executed
	the region and its usages: pink (no error), white (an error
	reached the arm and its predicate held), blue (an error came and the
	predicate did not hold). Then, for each handler and each test that
	executes its region, the test runs once with every execution of the
	region skipped, yielding an error the predicate holds for (an injected
	error; one wrapping X for errors.Is; X itself for ==; a zero value of
	the target's type for errors.As, when it is a struct or a pointer to
	one). A run that fails, crashes or times out fails. Verdicts:
	source-independent (every test with a white usage passes armed) or
	source-dependent (one fails); purely resilient (every test that
	executes the region passes armed, and one has a pink usage) or not
	purely resilient (one fails); unknown otherwise. Each handler's kind
	says where its error goes, followed through the function's
	assignments: propagate (it, or a value made from it, reaches a
	return), accumulate (added to a collection of errors returned
	later), translate (another error is returned), fallback (the arm
	makes the result otherwise), log-and-continue (logged, it goes no
	further), ignore, panic or exit. The text report leads with the
	handlers that stop the error (fallback, log-and-continue, ignore) and
	the tests that do not check an error passed on; the handlers that
	pass it on come after, counted apart: their resilience is the
	caller's. Sharded: atomicx plan -question handlers. Each handler
	comes with the command that repeats a failed run (the JSON and HTML
	reports have one per test):

		ATOMICX_INJECT='handler:always:example.com/m.Load#handler:load.go:12:2' \
		atomicx go test -count=1 -run '^TestLoad$' example.com/m

	Widening: a typed arm (errors.Is, errors.As, err == X, a type switch's
	case) whose body does not use the typed value can be widened to
	err != nil (a widened case takes every error no earlier case takes). Each source-independent one is validated by running the
	tests that execute its region with ATOMICX_WIDEN=HANDLER, then the
	kept ones all together. Status: kept (every run passes), rejected (a
	test fails where another arm handled the error without one), not
	offered (cannot be widened, not source-independent, or a test fails
	where the error left the region: it expects the error to propagate),
	not validated (a run is missing; sharded campaigns do not validate
	widenings). -widen-diff FILE writes the kept ones as a unified diff of
	the sources, each predicate rewritten to err != nil, when they pass
	together; a case of a type switch or of a switch on the error is left
	out of the diff.

	Routing: the err != nil arm of a region whose call can panic (any
	call but one of a standard library function) could take the call's
	panic as an error. Each source-independent one is validated by
	running the tests that execute its region with ATOMICX_ROUTE=HANDLER
	(the call panics, the panic routed to the arm), a test that fails so
	once more with the panic not routed, then the kept ones together.
	Status: kept, rejected, not offered (the call cannot panic, not
	source-independent, or a test passes only with the panic going on:
	it expects it to propagate), not validated. -widen-diff writes the
	kept ones too: the call wrapped in a literal that recovers its panic
	into its error.

		atomicx handlers -widen-diff widen.diff ./...
		git apply widen.diff

Sharded campaigns:

	atomicx plan -o PLANDIR [-question QUESTION] [its command's flags] [packages]
	atomicx run -shard K/N [-jobs J] [-o JOURNAL] [-C DIR] [-rebuild] PLANDIR
	atomicx merge [-format text|json|html|sarif|github] [-o FILE] [-jobs J] [-C DIR] PLANDIR [JOURNAL...]

	detect is these three steps in one process. plan builds the test
	binaries into PLANDIR/bin, runs the profile runs and writes
	PLANDIR/plan.json: the runs, the options every shard uses, and an ID
	that hashes them. run, on any machine with the module checked out and
	a copy of PLANDIR, runs one share (every machine splits a plan the
	same way) and the rechecks of its own runs, appending to
	PLANDIR/shard-K-of-N.jsonl; run again, a killed shard goes on where it
	stopped. merge refuses journals of another plan, writes
	PLANDIR/journal.jsonl (for report and reproduce), prints the report
	and how many of the plan's runs each shard has done. A handlers
	plan's widenings need every shard's runs: once all are in, merge runs
	them itself (in the module here, or -C DIR) into
	PLANDIR/merge-follow-ups.jsonl. A GitHub Actions
	matrix and a Kubernetes Indexed Job that do this are in the
	repository's examples/ci:

		atomicx plan -o plan ./...
		atomicx run -shard $((JOB_COMPLETION_INDEX+1))/8 plan
		atomicx merge -format html -o report.html plan

	atomicx policy suggest [journal-or-report] reads a journal (or a report
	written with -format json) and prints one [[rule]] with mode = "mask"
	per package, listing its pure non-atomic functions, each under a comment
	with its evidence (one whose failed calls wrote to a file, a connection
	or another process before failing is only named in a comment, with the
	write: a rollback of memory cannot undo it); add them to atomicheck.toml:

		atomicx policy suggest >> atomicheck.toml

Resources left open on error paths:

	atomicx vet [-stats] [-policy file|off] [-tests=false]
	            [-format text|sarif|github] [-o FILE]
	            [-confirm [-jobs N] [-timeout d] [-run regexp] [-journal dir]]
	            [packages]

	vet follows, in each function, every resource acquired (files, network
	connections, HTTP response bodies, database/sql rows, statements and
	transactions, context cancel functions, locks, tickers and timers,
	started commands, signal notifications, compressed readers, and the
	[[leak.resource]] tables of atomicheck.toml) and prints file:line:col
	for each one still open at a return, with the branches that lead
	there. An acquire whose error result is non-nil acquired nothing: the
	usual f, err := os.Open(p); if err != nil { return err } is fine. Not
	reported: paths ending in os.Exit, log.Fatal or a panic (-panics
	reports the locks held where a function panics); a resource that is
	nil on the path, stored, sent, captured, passed to a function that
	keeps it (one that only reads it, such as parse(r io.Reader), or a
	wrapper such as bufio.NewReader, does not), or returned (its callers
	then inherit it); a lock released before it is taken again (the
	caller's); a line with //nolint:errleak or //atomicx:ignore, or a
	function whose declaration line or doc comment has one. -stats prints how many findings
	each of these removed. -format sarif writes a SARIF 2.1.0 log with
	each path as a code flow; -format github, GitHub Actions annotations.
	-confirm then runs the packages' tests,
	built for detection, with the failure that opens each path injected
	(the call whose error the path's last error test finds non-nil), and
	adds a line per finding: confirmed (a test took the function to the
	reported return, failing) with the resource open at return, closed
	at return (probed without effect: files, connections, HTTP/1 bodies,
	sql rows, statements, transactions and connections, locks, contexts,
	started commands, and resources whose table names is_closed), or
	openness not checked (and why: a timer cannot be probed without
	stopping it), confirmed: hangs (the test hit -timeout with the
	function blocked, as on a lock its error return left held), reached,
	other return, reached, timed out, reached, crashed,
	not reached by the tests, or not confirmable (no failed call decides
	the path); with a reproduce line for the test that showed it. The
	same analysis runs under go vet:

		go install github.com/atomicx/atomicx/cmd/atomicx-vet
		go vet -vettool=$(go env GOPATH)/bin/atomicx-vet ./...

Detecting non-atomic functions by hand:

	Write an atomicheck.toml next to go.mod:

		[[rule]]
		packages = ["./..."]
		mode = "detect"

	then run the tests with the event log on:

		ATOMICX_LOG=$PWD/events.jsonl go test -toolexec atomicx ./...

	Every call of an instrumented function that fails (returns a non-nil
	error, panics or calls runtime.Goexit) is compared with a snapshot of
	what it could reach at entry, and a verdict is appended to the log:
	atomic, non-atomic (with the first differing path, e.g. v.size: 0 → 5),
	or unknown (the graph was larger than the snapshot budget).

	To see what a failure at one place does, arm one injected fault:

		ATOMICX_INJECT='error:1:example.com/m.(*Vector).Alloc#entry' \
		ATOMICX_LOG=$PWD/events.jsonl go test -toolexec atomicx ./...

	Without ATOMICX_LOG and ATOMICX_INJECT an instrumented program behaves
	as the original: each instrumented call costs one extra branch.

Run 'atomicx help policy' for the policy file, 'atomicx help env' for the
environment variables, and 'atomicx help TOPIC' for a page of the
documentation: detect, reports, handlers, perturb, masking, policy, vet,
comp, environment, how-it-works.
`

const helpEnv = `Environment variables read by atomicx and by instrumented programs:

	ATOMICX_POLICY   path of the policy file; "off" disables atomicx
	ATOMICX_CACHE    where atomicx keeps the runtime it builds
	                 (default: atomicx/ in the user cache directory)
	ATOMICX_LOG      event log of an instrumented program: verdicts and
	                 injections are appended, one JSON object per line
	ATOMICX_INJECT   arm one fault: FAULT:OCCURRENCE:SITE, FAULT being
	                 error or panic, SITE e.g. example.com/m.(*T).M#entry;
	                 or arm an error handler: handler:always:HANDLER
	                 (atomicx handlers); with ATOMICX_SNAPSHOTS=none (a
	                 perturbation run) the "inject" event has the calls
	                 in progress on the stack ("stack", by this run's
	                 numbers) and the goroutine ("g"), and each "fail"
	                 event after it its goroutine
	ATOMICX_SNAPSHOTS
	                 which calls are snapshotted: sampled (default: the
	                 first 8 calls of each function, then calls 16, 32,
	                 64, ..., and 8 more after a failure sampled out,
	                 which is logged as unknown with its call number;
	                 none while snapshots have taken longer than the
	                 rest of the run), or all; a campaign
	                 also uses before-fault (none after the fault fired)
	                 and none (failed calls are logged for a rerun)
	ATOMICX_SNAPSHOT_CALLS
	                 the only calls to snapshot: N@SITE;N@SITE, the Nth
	                 call of the function whose entry site is SITE, and
	                 1-40,52@SITE for runs of calls

Set by 'atomicx detect' for the runs of a campaign:

	ATOMICX_PROFILE  log the first N reaches of each point, with the calls
	                 in progress on the stack
	ATOMICX_STOP     "absorbed": exit 0 once the injected failure stops
	                 propagating
	ATOMICX_LIST_AS_WRITTEN
	                 "1": log, as each instrumented package starts, its
	                 functions left as written ("as_written" events);
	                 one profile run per test binary
	ATOMICX_BATCH    a file of experiments, one per line
	                 ("TEST<tab>INJECT<tab>CALLS", as ATOMICX_INJECT and
	                 ATOMICX_SNAPSHOT_CALLS take them): the test binary
	                 runs its tests round after round (-test.count), and
	                 a run of a test runs the next experiment if it is
	                 the test's, and is skipped if not; "experiment" and
	                 "experiment-end" events mark each
	ATOMICX_MASK     SITE;SITE: roll the failed calls of these functions
	                 back once their verdict is logged (rechecks)
	ATOMICX_UNDO_FILES
	                 SITE;SITE: functions of ATOMICX_MASK whose writes to
	                 regular files are undone with their memory, as a
	                 mask rule's undo_files does (rechecks: the same
	                 functions); a rolled-back call says how many writes
	                 it undid ("undone_writes") or why not ("not_undone")
	ATOMICX_OBLIVIOUS
	                 SITE;SITE: failure-oblivious functions (perturbation
	                 candidates): a failed call returns a nil error and a
	                 panic through it is recovered, the other results as
	                 the function left them; a function also in
	                 ATOMICX_MASK is rolled back first (atomic), and keeps
	                 its failure when it cannot be; each is logged as an
	                 "oblivious" event
	ATOMICX_WIDEN    HANDLER;HANDLER: typed arms (errors.Is, errors.As,
	                 err == X, type switch cases) that can be widened
	                 hold for any error (atomicx handlers, widening)
	ATOMICX_ROUTE    HANDLER;HANDLER: the regions of these err != nil
	                 arms panic at their start, the panic routed to the
	                 arm as an error (atomicx handlers, routing); with
	                 panic: before the IDs, the panic is not routed
	ATOMICX_BINARY   program workloads: the instrumented binary

The variables an instrumented program reads are its arming, defined in
the package rt/arm. A malformed one is logged as a "problem" event and
taken as unset (a malformed ATOMICX_SNAPSHOTS snapshots every call, a
malformed ATOMICX_SNAPSHOT_CALLS none).
`

func help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return 0
	}
	switch args[0] {
	case "env":
		fmt.Fprint(stdout, helpEnv)
	default:
		page, ok := docs.Page(args[0])
		if !ok {
			fmt.Fprintf(stderr, "atomicx help: unknown topic %q (topics: %s)\n", args[0], strings.Join(helpTopics(), ", "))
			return 2
		}
		fmt.Fprint(stdout, page)
	}
	return 0
}

// helpTopics are what atomicx help takes: the documentation's pages, and
// env, the table of the environment variables.
func helpTopics() []string {
	return append(docs.Topics(), "env")
}
