package rt

import "testing"

// BenchmarkHandlerEnabledNotArmed is a region and its arms while the
// runtime is enabled (a campaign's run) and no handler is armed, widened
// or routed: what every region costs in the runs of other questions.
func BenchmarkHandlerEnabledNotArmed(b *testing.B) {
	hdReset()
	useSettings(b, settings{enabled: true})
	ok := func() error { return nil }
	for b.Loop() {
		hdRegion(ok)
	}
}
