package arm

import (
	"strconv"
	"strings"
)

// EnvBatch names a batch file: the experiments that one run of a test
// binary runs in turn, one per run of its test (the go test flag
// -test.count says how many). The other variables of the run arm what
// the experiments share; each experiment sets its own Inject and
// SnapshotCalls. See Experiment.
const EnvBatch = "ATOMICX_BATCH"

// An Experiment is what one run of a test in a batch arms beyond what
// the batch's experiments share: its fault and the only calls it
// snapshots (Arming's fields of the same names).
type Experiment struct {
	Inject        Injection
	SnapshotCalls string
}

// FormatBatch writes the experiments as a batch file reads: one per
// line, "INJECT\tCALLS" (EnvInject's and EnvSnapshotCalls's syntax, each
// "" when unset).
func FormatBatch(exps []Experiment) []byte {
	var b strings.Builder
	for _, e := range exps {
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
		inj, calls, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, problem(EnvBatch + ": line " + strconv.Itoa(n) + ": want INJECT<tab>CALLS")
		}
		var e Experiment
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
