package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/rt/arm"
	"github.com/google/go-cmp/cmp"
)

// TestCrashes: crashed experiments are listed by the line the binary died
// on, most frequent first, with their tests and one to run again; other
// runs are not.
func TestCrashes(t *testing.T) {
	crashed := func(test, site, died, output string) *campaign.Record {
		return &campaign.Record{Kind: "experiment", Package: "m/fs", Test: test, Arming: arm.Arming{Inject: arm.Injection{Site: site, Occurrence: 2, Fault: "error"}},
			Status: campaign.Crashed, Died: died, Output: output}
	}
	const unlock = "fatal error: sync: RUnlock of unlocked RWMutex"
	recs := []*campaign.Record{
		crashed("TestRename", "m/fs.(*Fs).Rename#entry", unlock, "goroutine 7 [running]:\n..."),
		crashed("TestMkdir", "m/fs.(*Fs).mkdir#entry", "panic: interface conversion: error is *rt.InjectedFault, not *fs.PathError", ""),
		crashed("TestRenameDir", "m/fs.(*Fs).Rename#entry", unlock, ""),
		crashed("TestRename", "m/fs.(*Fs).rename#entry", unlock, ""),
		// Two reaches of one point: one crash.
		crashed("TestLoad", "m/fs.load#entry", "panic: atomicx: injected error at m/fs.load#entry (m/fs/fs.go:3:6), occurrence 1", ""),
		crashed("TestLoad", "m/fs.load#entry", "panic: atomicx: injected error at m/fs.load#entry (m/fs/fs.go:3:6), occurrence 2", ""),
		// A journal from before Died: the message is read from the output.
		crashed("TestExit", "m/fs.(*Fs).Close#entry", "", "=== RUN TestExit\nsome log line\nexit status 3\nFAIL\tm/fs\t0.01s\n"),
		{Kind: "experiment", Package: "m/fs", Test: "TestOK", Arming: arm.Arming{Inject: arm.Injection{Site: "m/fs.F#entry"}}, Status: campaign.Failed, Output: "panic: not a crash"},
		{Kind: "profile", Package: "m/fs", Test: "TestP", Status: campaign.Crashed, Died: "panic: a profile run"},
	}
	r := Classify(recs, nil)
	type row struct {
		Message     string
		Experiments int
		Tests       []string
		Injection   string
	}
	var got []row
	for _, c := range r.Crashes {
		got = append(got, row{c.Message, c.Experiments, c.Tests, c.Injection})
	}
	want := []row{
		{unlock, 3, []string{"m/fs.TestRename", "m/fs.TestRenameDir"}, "error:2:m/fs.(*Fs).Rename#entry"},
		{"panic: atomicx: injected error at m/fs.load#entry (m/fs/fs.go:3:6)", 2, []string{"m/fs.TestLoad"}, "error:2:m/fs.load#entry"},
		{"panic: interface conversion: error is *rt.InjectedFault, not *fs.PathError", 1, []string{"m/fs.TestMkdir"}, "error:2:m/fs.(*Fs).mkdir#entry"},
		{"some log line", 1, []string{"m/fs.TestExit"}, "error:2:m/fs.(*Fs).Close#entry"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("crashes (-want +got):\n%s", diff)
	}
	if rep := r.Crashes[0].Reproduce; !strings.Contains(rep, "ATOMICX_INJECT='error:2:m/fs.(*Fs).Rename#entry'") || !strings.Contains(rep, "-run '^TestRename$' m/fs") {
		t.Errorf("reproduce = %q", rep)
	}

	var text bytes.Buffer
	WriteText(&text, r, nil, false)
	for _, line := range []string{
		"crashes (7 experiments died without a test verdict):\n",
		"3× " + unlock + "\n\tin m/fs.TestRename, m/fs.TestRenameDir\n\treproduce: ",
	} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("text report lacks %q:\n%s", line, text.String())
		}
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, r, nil); err != nil {
		t.Fatal(err)
	}
	if want := "<li>3× <code>" + unlock + "</code>, in <code>m/fs.TestRename</code>, <code>m/fs.TestRenameDir</code>"; !strings.Contains(page.String(), want) {
		t.Errorf("HTML report lacks %q", want)
	}
	if Classify(recs[7:], nil).Crashes != nil {
		t.Error("crashes listed for a campaign whose experiments did not crash")
	}
}
