package rt

import (
	"reflect"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/rt/arm"
)

// envOf is a getenv over names and values, in pairs.
func envOf(kv ...string) func(string) string {
	env := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return func(name string) string { return env[name] }
}

// parseSettings is what init makes of a log and an injection.
func parseSettings(logPath, inject string) settings {
	a, problems := arm.Parse(envOf(arm.EnvLog, logPath, arm.EnvInject, inject))
	s := settingsOf(a)
	s.problems = problems
	return s
}

// parseCampaignSettings is what init makes of the settings of a
// campaign's run, and their problems.
func parseCampaignSettings(profile, stop, snapshots, calls, masks string) (campaignSettings, string) {
	a, problems := arm.Parse(envOf(arm.EnvProfile, profile, arm.EnvStop, stop, arm.EnvSnapshots, snapshots,
		arm.EnvSnapshotCalls, calls, arm.EnvMask, masks))
	return campaignSettingsOf(a), strings.Join(problems, "\n")
}

// siteIDs is a list of IDs, "ID;ID", as init reads it into a set.
func siteIDs(list string) map[string]bool {
	a, _ := arm.Parse(envOf(arm.EnvMask, list))
	return campaignSettingsOf(a).masks
}

// routeIDs is arm.EnvRoute's value as init reads it.
func routeIDs(v string) (ids map[string]bool, unrouted bool) {
	a, _ := arm.Parse(envOf(arm.EnvRoute, v))
	c := campaignSettingsOf(a)
	return c.route, c.routeUnrouted
}

func TestParseSettings(t *testing.T) {
	tests := []struct {
		name    string
		logPath string
		inject  string
		want    settings
		problem string // substring of the problem text; "" means none
	}{
		{name: "nothing", want: settings{}},
		{
			name:    "log only",
			logPath: "/tmp/events.jsonl",
			want:    settings{enabled: true, logPath: "/tmp/events.jsonl"},
		},
		{
			name:   "error injection only",
			inject: "error:3:example.com/m.(*Vector).Alloc#entry",
			want:   settings{enabled: true, armedID: "example.com/m.(*Vector).Alloc#entry", armedOcc: 3, armedErr: true},
		},
		{
			name:    "panic injection and log",
			logPath: "l",
			inject:  "panic:1:example.com/m.F#entry",
			want:    settings{enabled: true, logPath: "l", armedID: "example.com/m.F#entry", armedOcc: 1},
		},
		{
			name:   "site ID with colons",
			inject: "error:12:example.com/m.F#call:example.com/m/f.go:10:3",
			want:   settings{enabled: true, armedID: "example.com/m.F#call:example.com/m/f.go:10:3", armedOcc: 12, armedErr: true},
		},
		{
			name:   "handler armed always",
			inject: "handler:always:example.com/m.F#handler:f.go:12:2",
			want:   settings{enabled: true, armedHandler: "example.com/m.F#handler:f.go:12:2"},
		},
		{name: "handler at one occurrence", inject: "handler:1:m.F#handler:f.go:1:1", problem: "want handler:always:HANDLER"},
		{name: "handler without ID", inject: "handler:always:", problem: "want FAULT:OCCURRENCE:SITE"},
		{
			name:   "every reach",
			inject: "error:always:example.com/m.F#call:example.com/m/f.go:10:3",
			want:   settings{enabled: true, armedID: "example.com/m.F#call:example.com/m/f.go:10:3", armedAlways: true, armedErr: true},
		},
		{
			name:   "every reach, panics",
			inject: "panic:always:example.com/m.F#entry",
			want:   settings{enabled: true, armedID: "example.com/m.F#entry", armedAlways: true},
		},
		{name: "always in capitals", inject: "error:ALWAYS:m.F#entry", problem: "want FAULT:OCCURRENCE:SITE"},
		{name: "always without a site", inject: "error:always:", problem: "want FAULT:OCCURRENCE:SITE"},
		{name: "missing occurrence and site", inject: "error", problem: "want FAULT:OCCURRENCE:SITE"},
		{name: "missing site", inject: "error:1", problem: "want FAULT:OCCURRENCE:SITE"},
		{name: "empty site", inject: "error:1:", problem: "want FAULT:OCCURRENCE:SITE"},
		{name: "occurrence zero", inject: "error:0:m.F#entry", problem: "want FAULT:OCCURRENCE:SITE"},
		{name: "negative occurrence", inject: "error:-1:m.F#entry", problem: "want FAULT:OCCURRENCE:SITE"},
		{name: "occurrence not a number", inject: "error:x:m.F#entry", problem: "want FAULT:OCCURRENCE:SITE"},
		{name: "unknown fault", inject: "exit:1:m.F#entry", problem: "fault must be error or panic"},
		{name: "fault in capitals", inject: "ERROR:1:m.F#entry", problem: "fault must be error or panic"},
		{
			name:    "malformed injection with a log: enabled for the log only",
			logPath: "l",
			inject:  "error:x:m.F#entry",
			want:    settings{enabled: true, logPath: "l"},
			problem: "want FAULT:OCCURRENCE:SITE",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseSettings(tt.logPath, tt.inject)
			problem := strings.Join(got.problems, "\n")
			if tt.problem == "" && problem != "" {
				t.Errorf("unexpected problem %q", problem)
			}
			if tt.problem != "" {
				if !strings.Contains(problem, tt.problem) {
					t.Errorf("problem = %q, want it to contain %q", problem, tt.problem)
				}
				if !strings.Contains(problem, arm.EnvInject+"="+tt.inject) {
					t.Errorf("problem %q does not quote the setting", problem)
				}
			}
			got.problems = nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseSettings(%q, %q) = %+v, want %+v", tt.logPath, tt.inject, got, tt.want)
			}
		})
	}
}

func TestParseCampaignSettings(t *testing.T) {
	const a, b = "example.com/m.(*T).M#entry", "example.com/m.F#entry"
	tests := []struct {
		name                                   string
		profile, stop, snapshots, calls, masks string
		want                                   campaignSettings
		problem                                string // substring; "" means none
	}{
		{name: "nothing: sampled snapshots", want: campaignSettings{sampled: true}},
		{name: "sampled", snapshots: "sampled", want: campaignSettings{sampled: true}},
		{name: "all", snapshots: "all"},
		{name: "profile", profile: "3", snapshots: "none", want: campaignSettings{profile: 3, noSnapshots: true, numbered: numberedCalls}},
		{name: "experiment", stop: "absorbed", snapshots: "before-fault", want: campaignSettings{stopAbsorbed: true, beforeFault: true}},
		{
			name:  "listed calls",
			calls: "2@" + a + ";1@" + b + ";5@" + a,
			want:  campaignSettings{targets: map[string]callSet{a: {{2, 2}, {5, 5}}, b: {{1, 1}}}},
		},
		{
			name:  "runs of calls",
			calls: "3-5,9,1-2@" + a + ";7@" + a,
			want:  campaignSettings{targets: map[string]callSet{a: {{1, 5}, {7, 7}, {9, 9}}}},
		},
		{name: "masks", masks: a + ";" + b + ";", want: campaignSettings{sampled: true, masks: map[string]bool{a: true, b: true}}},
		{name: "empty list snapshots nothing", calls: ";", want: campaignSettings{targets: map[string]callSet{}}},
		{name: "bad profile", profile: "0", problem: arm.EnvProfile},
		{name: "bad stop", stop: "never", problem: arm.EnvStop},
		{name: "bad snapshots", snapshots: "some", problem: "want sampled, all, before-fault or none"},
		{
			name:    "malformed call: snapshots nothing",
			calls:   "2@" + a + ";x@" + b,
			want:    campaignSettings{targets: map[string]callSet{}},
			problem: `malformed calls "x@` + b + `"`,
		},
		{name: "call 0", calls: "0@" + a, want: campaignSettings{targets: map[string]callSet{}}, problem: "want N@SITE"},
		{name: "run backwards", calls: "5-3@" + a, want: campaignSettings{targets: map[string]callSet{}}, problem: "want N@SITE"},
		{name: "open run", calls: "5-@" + a, want: campaignSettings{targets: map[string]callSet{}}, problem: "want N@SITE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problem := parseCampaignSettings(tt.profile, tt.stop, tt.snapshots, tt.calls, tt.masks)
			if tt.problem == "" && problem != "" || !strings.Contains(problem, tt.problem) {
				t.Fatalf("problem = %q, want %q", problem, tt.problem)
			}
			if tt.problem != "" {
				// A malformed setting still leaves a usable one: only
				// the list of calls is checked then.
				if tt.want.targets != nil && !reflect.DeepEqual(got.targets, tt.want.targets) {
					t.Errorf("targets = %v, want %v", got.targets, tt.want.targets)
				}
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
