package rt

import "testing"

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
