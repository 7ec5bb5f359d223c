package rt

import (
	"os"
	"time"

	"github.com/atomicx/atomicx/rt/arm"
)

// The runtime is armed by the environment (see package arm, which
// defines the variables and their syntax): it is read once, when the
// program starts; a program started without it runs the original code
// plus one branch per instrumented call. The log (arm.EnvLog) turns on
// snapshots and verdicts; the injection (arm.EnvInject) makes one point
// fail: its Occurrence-th reach, or every reach when Always (a
// perturbation campaign's second run of a point). A handler's injection
// (arm.FaultHandler) skips every execution of its region, which yields
// the fault that the handler's predicate holds for (see Handler).

// settings is what the environment asked for. It is written once, before
// main runs, and only read afterwards.
type settings struct {
	enabled  bool   // anything at all to do
	logPath  string // event log; "" means no verdicts
	armedID  string // site ID of the armed injection; "" means none
	armedOcc uint64 // 1-based occurrence of the armed injection; 0 with armedAlways
	armedErr bool   // inject an error (else a panic)
	// problems are the malformed settings, each logged as a "problem"
	// event when the log opens.
	problems []string

	// armedAlways: every reach of the armed site fails (OCCURRENCE
	// "always").
	armedAlways bool
	// armedHandler is the ID of the armed handler (see Handler); "" means
	// none.
	armedHandler string
	// listAsWritten: list the functions left as written (see AsWritten).
	listAsWritten bool
}

var (
	config   settings
	campaign campaignSettings
)

func init() {
	a, problems := arm.Parse(os.Getenv)
	if a.Batch != "" {
		var more []string
		a, more = readBatch(a)
		problems = append(problems, more...)
	}
	applyArming(a)
	config.problems = problems
	snapshotTime.start = time.Now()
	On = config.enabled
}

// applyArming sets the settings from a: when the program starts, and
// between the experiments of a batch run (see batchRun), whose armings differ
// in their injection and the calls they snapshot only, and so agree on
// whether the runtime is enabled at all.
func applyArming(a arm.Arming) {
	problems := config.problems
	config, campaign = settingsOf(a), campaignSettingsOf(a)
	config.problems = problems
	campaign.tracksCalls = tracksCalls(campaign, config)
	if campaign.oblivious != nil {
		config.enabled = true
		// Every call of a failure-oblivious function is wrapped: begin
		// sees to each (see Begin).
		campaign.numbered = 0
	}
	if campaign.widen != nil || campaign.route != nil {
		config.enabled = true
	}
	if campaign.profile > 0 && config.logPath != "" {
		config.enabled = true
	}
	if config.logPath == "" {
		campaign.numbered = 0 // no profile run: nothing is logged
	}
}

// tracksCalls says whether a run tracks calls in progress (see
// campaignSettings.tracksCalls): a profile run, or a run that arms a
// point without snapshots.
func tracksCalls(c campaignSettings, s settings) bool {
	return c.profile > 0 || c.noSnapshots && s.armedID != ""
}

// settingsOf is what the runtime makes of the log and the injection of
// an arming.
func settingsOf(a arm.Arming) settings {
	s := settings{logPath: a.Log, listAsWritten: a.ListAsWritten}
	switch inj := a.Inject; {
	case inj.Fault == arm.FaultHandler:
		s.armedHandler = inj.Site
	case !inj.IsZero():
		s.armedID, s.armedOcc, s.armedAlways, s.armedErr = inj.Site, inj.Occurrence, inj.Always, inj.Fault == arm.FaultError
	}
	s.enabled = s.logPath != "" || s.armedID != "" || s.armedHandler != ""
	return s
}

// Enabled reports whether instrumented functions should call into the
// runtime at all. It is the only cost of instrumentation while atomicx is
// not driving the program, and is small enough to be inlined.
func Enabled() bool { return config.enabled }

// On is what Enabled returns, for the test that keeps a small function
// inlinable (see the instrument package's twins): reading a variable costs
// the inliner less than an inlined call. It is set before main runs and
// never changed.
var On bool
