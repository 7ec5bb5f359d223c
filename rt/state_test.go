package rt

import (
	"path/filepath"
	"testing"
)

// useRun sets up a run that logs to a file of its own, with inject
// (EnvInject) armed and the campaign settings c (profile, stop,
// snapshots, calls, masks: parseCampaignSettings's arguments), and
// returns the log's path. Nothing is enabled that the settings do not
// enable; a test that calls functions directly enables them itself.
func useRun(t testing.TB, inject string, c [5]string) string {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "events.jsonl")
	useSettings(t, parseSettings(logPath, inject))
	var problem string
	campaign, problem = parseCampaignSettings(c[0], c[1], c[2], c[3], c[4])
	if problem != "" {
		t.Fatal(problem)
	}
	campaign.tracksCalls = tracksCalls(campaign, config)
	return logPath
}

// useSettings replaces the runtime's settings for the rest of the test and
// starts it with no open event log, no failure chains and no fired
// injection; everything is put back when the test ends.
func useSettings(t testing.TB, s settings) {
	t.Helper()
	savedConfig, savedCampaign := config, campaign
	resetEventLog()
	resetChains()
	resetInjected()
	config, campaign = s, campaignSettings{}
	t.Cleanup(func() {
		resetEventLog()
		resetChains()
		resetInjected()
		config, campaign = savedConfig, savedCampaign
	})
}

// resetEventLog closes the cached event log, so that the next event opens
// config.logPath afresh.
func resetEventLog() {
	eventLog.Lock()
	defer eventLog.Unlock()
	if eventLog.f != nil {
		eventLog.f.Close()
	}
	eventLog.f, eventLog.failed = nil, false
}

func resetChains() {
	chains.Lock()
	defer chains.Unlock()
	chains.byGID = nil
}

func resetInjected() {
	injected.fired.Store(false)
	injected.seq, injected.gid = 0, 0
	afterFault.Store(0)
	afterFaultChecks.Store(0)
}
