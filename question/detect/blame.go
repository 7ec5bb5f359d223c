package detect

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
)

// Pure or dependent: a non-atomic function is dependent when it would be
// atomic were the functions it calls atomic. The campaign asks it of each
// non-atomic failed call that had non-atomic failed calls of other
// functions inside it (whatever helpers lie between them): it replays the
// run with those functions masked (rolled back when they fail, as a
// masking build would) and looks at the call again. Atomic in the replay:
// dependent. Still non-atomic with nothing non-atomic left inside: pure.
// Still non-atomic with other functions now non-atomic inside it (the
// masks changed the run's path): ask again with those masked too.

// MaxMasks bounds the functions one replay masks. A call that would need
// more gets no replay, and its function's verdict rests on the practical
// rule (the first non-atomic call of a failure's propagation is pure).
const MaxMasks = 3

// Question asks whether the failed calls of the function whose entry
// site is Site stay non-atomic when the functions of Mask (entry sites,
// sorted, ";"-separated) are masked. One replay answers it for every run
// that asks it.
type Question struct {
	Site string
	Mask string
}

// A Failure is one failed call of a run that asks a question: a
// non-atomic call with non-atomic calls of other functions inside it.
type Failure struct {
	Event int // index of its verdict event in the record's events
	Question
	// OverBound: more functions ran non-atomic inside it than a replay
	// may mask; Question.Mask is then empty and nothing is replayed.
	OverBound bool
	// Unsettled: a call of another function failed inside it before the
	// run's fault fired, and was not snapshotted: whether it was
	// non-atomic is not known, so nothing is replayed.
	Unsettled bool
}

// reasonBeforeFault is rt.ReasonBeforeFault.
const reasonBeforeFault = "not snapshotted: failed before the fault"

// verdictCall is what the nesting of failed calls needs of a verdict.
type verdictCall struct {
	event       int
	site        string
	nonAtomic   bool
	masked      bool
	pid, g, seq uint64
	placed      bool // g and seq are known
	beforeFault bool // failed before the fault, not snapshotted
}

// Failures lists the failed calls of rec that ask a question: its
// non-atomic, unmasked verdicts with non-atomic failed calls of other
// functions (unmasked) inside them. A failed call ran inside another when,
// in the same process and goroutine, it was entered after the other and
// logged (it ended) before it. The question's mask is rec's own mask plus
// those functions.
func Failures(rec *campaign.Record) []Failure {
	var calls []*verdictCall
	for i, raw := range rec.Events {
		var v event
		if !campaign.MayBeEvent(raw, "verdict") || json.Unmarshal(raw, &v) != nil || v.Event != "verdict" {
			continue
		}
		calls = append(calls, &verdictCall{event: i, site: v.Site, nonAtomic: v.Verdict == "non-atomic",
			masked: v.Masked, pid: v.Pid, g: v.G, seq: v.Seq, placed: v.Seq != 0, beforeFault: v.Reason == reasonBeforeFault})
	}
	masks := rec.Arming.Mask
	var out []Failure
	for j, outer := range calls {
		if !outer.nonAtomic || outer.masked || !outer.placed || slices.Contains(masks, outer.site) {
			continue
		}
		inside := map[string]bool{}
		unsettled := false
		for _, in := range calls[:j] {
			if !in.placed || in.masked || in.site == outer.site || in.pid != outer.pid || in.g != outer.g || in.seq <= outer.seq {
				continue
			}
			switch {
			case in.nonAtomic:
				inside[in.site] = true
			case in.beforeFault:
				unsettled = true
			}
		}
		if unsettled {
			out = append(out, Failure{Event: outer.event, Question: Question{Site: outer.site}, Unsettled: true})
			continue
		}
		if len(inside) == 0 {
			continue
		}
		all := slices.Clone(masks)
		for s := range inside {
			if !slices.Contains(all, s) {
				all = append(all, s)
			}
		}
		f := Failure{Event: outer.event, Question: Question{Site: outer.site}}
		if len(all) > MaxMasks {
			f.OverBound = true
		} else {
			sort.Strings(all)
			f.Mask = strings.Join(all, ";")
		}
		out = append(out, f)
	}
	return out
}

// asksQuestions says whether a record's failed calls are asked about:
// those of every run but the profile runs, which snapshot nothing.
func asksQuestions(rec *campaign.Record) bool { return rec.Kind != "profile" }

// replayOf is the replay of rec with mask.
func replayOf(rec *campaign.Record, mask string) *campaign.Record {
	return &campaign.Record{Kind: "recheck", Package: rec.Package, Test: rec.Test, Arming: arm.Arming{Inject: rec.Arming.Inject,
		SnapshotCalls: rec.Arming.SnapshotCalls, Mask: arm.SplitIDs(mask)}}
}

// replaysOf plans the replays that the records' failed calls ask for,
// one per question not asked before (asked holds the questions of the
// replays planned or journaled so far, and is updated).
func replaysOf(recs []*campaign.Record, asked map[Question]bool) []*campaign.Record {
	var plan []*campaign.Record
	planned := map[string]bool{}
	for _, r := range recs {
		if !asksQuestions(r) {
			continue
		}
		for _, f := range Failures(r) {
			if f.OverBound || f.Unsettled || asked[f.Question] {
				continue
			}
			asked[f.Question] = true
			re := replayOf(r, f.Mask)
			if !planned[re.Key()] {
				planned[re.Key()] = true
				plan = append(plan, re)
			}
		}
	}
	return plan
}

// Outcomes of a question, from the replays.
const (
	OutcomePure      = "pure"       // still non-atomic with nothing non-atomic left inside
	OutcomeDependent = "dependent"  // atomic once the functions inside were masked
	OutcomeOverBound = "over bound" // a replay would have had to mask more than MaxMasks functions
	OutcomeNoAnswer  = "no answer"  // no replay made the function fail (not run yet, or the masks changed the run's path)
	OutcomeUnsettled = "unsettled"  // a call failed inside it before the fault, not snapshotted
)

// Blame answers questions from the replays of a campaign.
type Blame struct {
	byMask   map[string][]*campaign.Record // replays by mask
	outcomes map[Question]outcome
}

type outcome struct {
	what   string
	rec    *campaign.Record // for OutcomePure: the replay that showed it
	event  int              // and the index of its verdict there
	inProg bool
}

// NewBlame reads the replays among recs.
func NewBlame(recs []*campaign.Record) *Blame {
	b := &Blame{byMask: map[string][]*campaign.Record{}, outcomes: map[Question]outcome{}}
	for _, r := range recs {
		if r.Kind == "recheck" {
			mask := strings.Join(r.Arming.Mask, ";")
			b.byMask[mask] = append(b.byMask[mask], r)
		}
	}
	return b
}

// Resolve says what the replays found about a failed call that asks a
// question. For OutcomePure found by a replay, it also returns that
// replay and the index of the function's verdict in its events.
func (b *Blame) Resolve(f Failure) (what string, rec *campaign.Record, event int) {
	switch {
	case f.OverBound:
		return OutcomeOverBound, nil, 0
	case f.Unsettled:
		return OutcomeUnsettled, nil, 0
	}
	o := b.resolve(f.Question)
	return o.what, o.rec, o.event
}

func (b *Blame) resolve(q Question) outcome {
	if o, ok := b.outcomes[q]; ok {
		if o.inProg {
			return outcome{what: OutcomeNoAnswer}
		}
		return o
	}
	b.outcomes[q] = outcome{inProg: true}
	o := b.resolveReplays(q)
	b.outcomes[q] = o
	return o
}

// resolveReplays looks at the function's verdicts in the replays with
// q's mask: one non-atomic with nothing non-atomic inside answers pure;
// one non-atomic with other functions non-atomic inside asks again with
// those masked too; atomic ones answer dependent.
func (b *Blame) resolveReplays(q Question) outcome {
	sawAtomic := false
	var again []Failure
	for _, r := range b.byMask[q.Mask] {
		asks := map[int]Failure{}
		for _, f := range Failures(r) {
			asks[f.Event] = f
		}
		for i, raw := range r.Events {
			var v event
			if !campaign.MayBeEvent(raw, "verdict") || json.Unmarshal(raw, &v) != nil || v.Event != "verdict" || v.Site != q.Site || v.Masked || r.Arming.Inject.Site != "" && !v.Injected {
				continue
			}
			switch v.Verdict {
			case "atomic":
				sawAtomic = true
			case "non-atomic":
				f, ok := asks[i]
				if !ok {
					return outcome{what: OutcomePure, rec: r, event: i}
				}
				again = append(again, f)
			}
		}
	}
	worst := ""
	for _, f := range again {
		what, rec, event := b.Resolve(f)
		switch what {
		case OutcomePure:
			return outcome{what: what, rec: rec, event: event}
		case OutcomeOverBound, OutcomeNoAnswer, OutcomeUnsettled:
			worst = what
		}
	}
	switch {
	case worst != "":
		return outcome{what: worst}
	case len(again) > 0 || sawAtomic:
		return outcome{what: OutcomeDependent}
	}
	return outcome{what: OutcomeNoAnswer}
}
