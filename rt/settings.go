package rt

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// Environment variables that drive the runtime. They are read once, when
// the program starts; a program started without them runs the original
// code plus one branch per instrumented call.
const (
	// EnvLog names the event log: a file that verdict and injection events
	// are appended to, one JSON object per line. Setting it turns on
	// snapshots and verdicts.
	EnvLog = "ATOMICX_LOG"
	// EnvInject arms one injection: "FAULT:OCCURRENCE:SITE", for example
	// "error:3:example.com/m.(*Vector).Alloc#entry" makes the third call
	// of Alloc fail with an injected error. FAULT is error or panic.
	// OCCURRENCE "always" makes every reach of the site fail, from the
	// first: a perturbation campaign's second run of a point.
	// "handler:always:HANDLER" arms an error handler (see Handler): every
	// execution of its region is skipped and yields the fault that the
	// handler's predicate holds for.
	EnvInject = "ATOMICX_INJECT"
)

// settings is what the environment asked for. It is written once, before
// main runs, and only read afterwards.
type settings struct {
	enabled  bool   // anything at all to do
	logPath  string // event log; "" means no verdicts
	armedID  string // site ID of the armed injection; "" means none
	armedOcc uint64 // 1-based occurrence of the armed injection; 0 with armedAlways
	armedErr bool   // inject an error (else a panic)
	problem  string // a malformed setting, reported in the log

	// armedAlways: every reach of the armed site fails (OCCURRENCE
	// "always").
	armedAlways bool
	// armedHandler is the ID of the armed handler (see Handler); "" means
	// none.
	armedHandler string
}

var (
	config   settings
	campaign campaignSettings
)

func init() {
	config = parseSettings(os.Getenv(EnvLog), os.Getenv(EnvInject))
	var problem string
	campaign, problem = parseCampaignSettings(os.Getenv(EnvProfile), os.Getenv(EnvStop), os.Getenv(EnvSnapshots), os.Getenv(EnvSnapshotCalls), os.Getenv(EnvMask))
	if problem != "" && config.problem == "" {
		config.problem = problem
	}
	campaign.tracksCalls = tracksCalls(campaign, config)
	if campaign.oblivious = siteIDs(os.Getenv(EnvOblivious)); campaign.oblivious != nil {
		config.enabled = true
		// Every call of a failure-oblivious function is wrapped: begin
		// sees to each (see Begin).
		campaign.numbered = 0
	}
	campaign.undoFiles = siteIDs(os.Getenv(EnvUndoFiles))
	if campaign.widen = siteIDs(os.Getenv(EnvWiden)); campaign.widen != nil {
		config.enabled = true
	}
	if campaign.route, campaign.routeUnrouted = routeIDs(os.Getenv(EnvRoute)); campaign.route != nil {
		config.enabled = true
	}
	snapshotTime.start = time.Now()
	if campaign.profile > 0 && config.logPath != "" {
		config.enabled = true
	}
	if config.logPath == "" {
		campaign.numbered = 0 // no profile run: nothing is logged
	}
	On = config.enabled
}

// tracksCalls says whether a run tracks calls in progress (see
// campaignSettings.tracksCalls): a profile run, or a run that arms a
// point without snapshots.
func tracksCalls(c campaignSettings, s settings) bool {
	return c.profile > 0 || c.noSnapshots && s.armedID != ""
}

func parseSettings(logPath, inject string) settings {
	s := settings{logPath: logPath}
	if inject != "" {
		fault, rest, ok1 := strings.Cut(inject, ":")
		occ, id, ok2 := strings.Cut(rest, ":")
		always := occ == "always"
		n, err := strconv.ParseUint(occ, 10, 64)
		if always {
			n, err = 0, nil
		}
		switch {
		case fault == handlerFault && ok2 && id != "":
			if !always {
				s.problem = EnvInject + "=" + inject + ": a handler is armed at every execution of its region: want handler:always:HANDLER"
				break
			}
			s.armedHandler = id
		case !ok1 || !ok2 || err != nil || n == 0 && !always || id == "":
			s.problem = EnvInject + "=" + inject + ": want FAULT:OCCURRENCE:SITE (OCCURRENCE a number from 1, or always), e.g. error:1:example.com/m.F#entry"
		case fault != "error" && fault != "panic":
			s.problem = EnvInject + "=" + inject + ": fault must be error or panic"
		default:
			s.armedID, s.armedOcc, s.armedAlways, s.armedErr = id, n, always, fault == "error"
		}
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

// routeIDs parses EnvRoute: "HANDLER;HANDLER", or the same after
// "panic:" for panics that are not routed.
func routeIDs(v string) (ids map[string]bool, unrouted bool) {
	v, unrouted = strings.CutPrefix(v, "panic:")
	return siteIDs(v), unrouted
}
