package arm

import (
	"strconv"
	"strings"
)

// EnvBatch names a batch file: the experiments that one run of a test
// binary runs in turn, each in a run of its test. The binary runs its
// tests (the go test flag -test.run says which) once per round
// (-test.count says how many rounds), in the order they are declared;
// each run of a test takes the batch's next experiment if it is the
// test's, and is skipped if not. The other variables of the run arm what
// the experiments share; each experiment sets its own Inject and
// SnapshotCalls. See Experiment.
const EnvBatch = "ATOMICX_BATCH"

// An Experiment is what one run of a test in a batch arms beyond what
// the batch's experiments share: its fault and the only calls it
// snapshots (Arming's fields of the same names).
type Experiment struct {
	Test          string // the top-level test it runs in
	Inject        Injection
	SnapshotCalls string
}

// FormatBatch writes the experiments as a batch file reads: one per
// line, "TEST\tINJECT\tCALLS" (EnvInject's and EnvSnapshotCalls's
// syntax, each "" when unset).
func FormatBatch(exps []Experiment) []byte {
	var b strings.Builder
	for _, e := range exps {
		b.WriteString(e.Test)
		b.WriteByte('\t')
		b.WriteString(e.Inject.String())
		b.WriteByte('\t')
		b.WriteString(e.SnapshotCalls)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// ParseBatch reads a batch file (see FormatBatch). The error names the
// line that does not read.
func ParseBatch(data string) ([]Experiment, error) {
	var exps []Experiment
	for n := 1; data != ""; n++ {
		line, rest, _ := strings.Cut(data, "\n")
		data = rest
		test, rest, ok := strings.Cut(line, "\t")
		inj, calls, ok2 := strings.Cut(rest, "\t")
		if !ok || !ok2 || !strings.HasPrefix(test, "Test") {
			return nil, problem(EnvBatch + ": line " + strconv.Itoa(n) + ": want TEST<tab>INJECT<tab>CALLS")
		}
		e := Experiment{Test: test}
		if inj != "" {
			i, err := ParseInjection(inj)
			if err != nil {
				return nil, problem(EnvBatch + ": line " + strconv.Itoa(n) + ": " + err.Error())
			}
			e.Inject = i
		}
		if calls != "" {
			if _, err := ParseCalls(calls); err != nil {
				return nil, problem(EnvBatch + ": line " + strconv.Itoa(n) + ": " + err.Error())
			}
			e.SnapshotCalls = calls
		}
		exps = append(exps, e)
	}
	return exps, nil
}
