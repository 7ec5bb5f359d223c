package campaign

import "encoding/json"

// A Planner is the question a campaign asks, as the engine sees it: the
// runs to do after each test's profile run, and the further runs that
// finished runs call for. The engine builds, profiles, runs, journals and
// merges; what a run arms and why is the planner's.
type Planner struct {
	Name string
	// Runs plans the runs of one test from its profile run (which
	// passed).
	Runs func(prof *Record, opt Options) []*PlannedRun
	// AllRuns, when set, plans the runs of every test at once, from the
	// profile runs that passed, in the order of their keys; Runs is then
	// not used. A question that gives each point to one test needs them
	// all.
	AllRuns func(profs []*Record, opt Options) []*PlannedRun
	// FollowUps plans the runs that finished runs call for, given the
	// records of one shard's journal; it returns none once it has asked
	// everything. The engine calls it at most Rounds times.
	FollowUps func(recs []*Record, opt Options) []*PlannedRun
	Rounds    int
	// OneAtATime runs every run of the campaign, profile runs included,
	// on one thread (GOMAXPROCS=1) and a test's parallel subtests one at a
	// time (-test.parallel=1): a question that names a reach by its number
	// needs the reaches numbered alike in every run.
	OneAtATime bool
	// WholeFollowUps says that the follow-ups are planned from the
	// whole campaign's runs (the profile runs and every test's runs): a
	// shard's journal holds the runs of some tests only and no profile
	// runs, so the merge runs them (ShardConfig.Merged), not the shards.
	WholeFollowUps bool
	// FailureOutput keeps the end of the output of every run that does
	// not pass (Record.Output): the question reads why the test failed.
	FailureOutput bool
	// FollowUpsText says what a round of follow-ups does, with the
	// number of runs as %d.
	FollowUpsText string
	// FollowUpsName is what the follow-ups are called where a merge
	// counts them ("rechecks").
	FollowUpsName string
	// Recognizes, when set, says whether the records of a journal whose
	// header names no question are this question's: journals written
	// before headers named their question.
	Recognizes func(recs []*Record) bool
	// Unnamed says that a campaign's header does not name the question
	// (Header.Question), nor do the places named after a question (a
	// journal's default directory, a report's category): its journals
	// were written before questions had names, and a header that names
	// none is its, unless another question Recognizes the records.
	Unnamed bool
	// InProcess lets the engine run the question's experiments of one
	// test in batches, many in one process (see Record.Batched): a run of
	// kind "experiment" whose environment differs from another's of the
	// same test in its injection and the calls it snapshots only. What
	// the question reports of a batched run, it has confirmed in a fresh
	// process first: Confirm picks, from the campaign's records (its
	// header, the profile runs the shard has, and the runs, in the order
	// of their keys), the batched runs to run again in a process of
	// their own, and Agrees
	// says whether such a rerun found what the batch did. When it did
	// not, the test's results depend on what its earlier runs in the
	// process left behind, and every batched run of the test is run
	// again, a process each.
	InProcess bool
	Confirm   func(recs []*Record) []*Record
	Agrees    func(batched, fresh *Record) bool
	// HeaderData, when set, is what of the question's options
	// (Config.QuestionData) the campaign's header keeps for the report
	// (Header.QuestionData); nil keeps nothing.
	HeaderData func(options json.RawMessage) json.RawMessage
}
