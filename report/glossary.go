package report

// Term is a word or a column of the report and what it means. The HTML
// page lists the glossary in its legend and gives each column header its
// term's text as a tooltip; docs/reports.md says the same.
type Term struct {
	Name, Text string
}

// Glossary holds every word and column of the report, in the order of the
// legend: verdicts, columns, runs, outcomes, times.
var Glossary = []Term{
	{Pure, "The function failed (returned an error or panicked) after changing state it can reach from its receiver and arguments, and it was the first non-atomic call along the failure's propagation, or it stayed non-atomic when the failure was replayed with its non-atomic callees masked: the change is its own. Fix or mask it."},
	{Dependent, "The function failed after the state had changed, but only ever after a non-atomic callee failed: it becomes atomic once its non-atomic callees are."},
	{Atomic, "Every failed call that could be compared left the state as it was at entry."},
	{"as written", "Atomic without a test: detection left the function as written because it checked at build time that no failure can leave a change behind (no error result, no panic injected, nothing called, at most one change, made last)."},
	{Unknown, "No failed call could be compared: the function was never seen failing, or each failing call was over the snapshot budget, not snapshotted (the run took another path than its profile run) or never snapshotted (it takes a lock that detection cannot follow)."},
	{"type verdict", "A type is pure (dependent) non-atomic when one of its methods is; atomic only when every method of it that the campaign saw is atomic or cannot fail (and one is atomic); unknown otherwise, so a type with untested methods is never called atomic. Methods left as written count as atomic; alone they make a type atomic only when they are all its methods."},
	{"position", "Where the function is declared: import path, file, line and column."},
	{"failures", "Failed calls of the function seen in all runs: natural failures and failures that propagated an injected fault."},
	{"non-atomic", "Failed calls after which the state reachable from the receiver and arguments differed from the state at entry."},
	{"first in chain", "Failed calls that were the first non-atomic call along a failure's propagation (the chain of calls the failure went up through): the change was the function's own, not a callee's. A function that is ever first is pure."},
	{"through a callback", "The change was made inside a function value that the function's caller passed in (a parameter, or a field of its configuration) while the function itself changed nothing: the evidence names it, \"through a callback (cfg.Hook)\". Evidence of a change the function made itself is shown first, and findings shown only through callbacks come after the others."},
	{"wrote outside memory", "Failed calls of the function, or of functions it called, wrote to a file, a connection or another process before failing (an *os.File's Write, os.Rename, os.Remove, a net.Conn's Write, an exec.Cmd's Start...): \"wrote to FILE before failing: a rollback of memory cannot undo it\". Masking such a function would roll its memory back while the file keeps the write, and put the two out of step: policy suggest does not propose it, and a mask build refuses it unless the rule's outside_writes lists it."},
	{"injections into", "Experiments whose fault was injected at the function's entry: its callers saw it fail without it running. They test the callers' error handling, not the function itself."},
	{"false negatives", "For a non-atomic function: its failed calls that compared equal all the same, failures that did not expose its non-atomicity (the false negatives of Fetzer et al.). Many of them mean that only some of its failure paths change state."},
	{"methods", "Methods of the type that the campaign saw: reached by a test or seen failing."},
	{"profile run", "One run of each test with nothing injected: it counts the injection points the test reaches and sees its natural failures."},
	{"experiment", "One run of a test with one fault armed at one injection point and occurrence."},
	{"natural rerun", "A test run again, nothing injected, to snapshot the calls that failed by themselves in its profile run."},
	{"recheck", "An experiment replayed with the first non-atomic function of its failure masked (rolled back), to tell whether the next one is non-atomic by itself."},
	{"faults injected", "Experiments in which the armed fault was injected: the test reached the armed point and occurrence again."},
	{"test failed", "The experiment's test failed: the expected outcome of an injected fault. A test that does not recover an injected panic fails too: the testing package reports it before the binary stops."},
	{"test passed", "The test passed: the fault was handled, or never injected."},
	{"absorbed", "The experiment ended early, without a test verdict, once the injected failure stopped propagating (a call on the stack at the fault returned without failing): nothing after that can change a verdict. -no-early-stop runs tests to their end."},
	{"hang", "The run went over its time limit (-timeout) and was killed."},
	{"crash", "The test binary died without a test verdict: a fatal error, os.Exit, a panic on a goroutine of its own, a signal."},
	{"wall time", "Time from the start of the command that ran the campaign (detect, handlers, perturb) to the end of its last run, summed over the sessions of a resumed campaign, or over the plan and shards of a sharded one (which may run at once). The command's own summary on stderr gives the same figure."},
	{"experiment time", "Time of the experiments summed: with several jobs at once it exceeds the wall time."},
}

// help returns the text of a term of the glossary, "" if it has none.
func help(name string) string {
	for _, t := range Glossary {
		if t.Name == name {
			return t.Text
		}
	}
	return ""
}
