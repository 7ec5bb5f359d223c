package arm

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// getenvOf looks names up in a list of "NAME=value", as the runtime's
// os.Getenv would in a process started with it.
func getenvOf(env []string) func(string) string {
	return func(name string) string {
		for _, kv := range slices.Backward(env) {
			if n, v, ok := strings.Cut(kv, "="); ok && n == name {
				return v
			}
		}
		return ""
	}
}

// full sets every field of an Arming, so that a field added without its
// encoding fails the round trip.
var full = Arming{
	Log:           "/tmp/x/events.jsonl",
	Inject:        Injection{Fault: FaultError, Occurrence: 3, Site: "example.com/m.F#call:example.com/m/f.go:10:3"},
	Profile:       8,
	StopAbsorbed:  true,
	Snapshots:     SnapshotsBeforeFault,
	SnapshotCalls: "1-3,7@example.com/m.(*T).M#entry;2@example.com/m.F#entry",
	Mask:          []string{"example.com/m.(*T).M#entry", "example.com/m.F#entry"},
	UndoFiles:     []string{"example.com/m.F#entry"},
	Oblivious:     []string{"example.com/m.G#entry"},
	Widen:         []string{"example.com/m.F#handler:f.go:12:2"},
	Route:         []string{"example.com/m.F#handler:f.go:20:2", "example.com/m.G#handler:g.go:3:2"},
	RouteUnrouted: true,
	ListAsWritten: true,
	Batch:         "/tmp/x/batch",
}

func TestFullSetsEveryField(t *testing.T) {
	v := reflect.ValueOf(full)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("the round trip's Arming leaves %s unset", v.Type().Field(i).Name)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		a    Arming
	}{
		{"nothing", Arming{}},
		{"every field", full},
		{"a log by hand", Arming{Log: "events.jsonl", Snapshots: SnapshotsAll}},
		{"profile run", Arming{Profile: 8, Snapshots: SnapshotsNone, ListAsWritten: true}},
		{"panic at every reach", Arming{Inject: Injection{Fault: FaultPanic, Always: true, Site: "m.F#entry"}, Snapshots: SnapshotsNone}},
		{"handler", Arming{Inject: HandlerInjection("m.F#handler:f.go:1:2"), Snapshots: SnapshotsNone}},
		{"no call to snapshot", Arming{Inject: Injection{Fault: FaultError, Occurrence: 1, Site: "m.F#entry"}, SnapshotCalls: ";"}},
		{"routed panics", Arming{Route: []string{"m.F#handler:f.go:1:2"}}},
		{"sampled said", Arming{Log: "l", Snapshots: SnapshotsSampled}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := tt.a.Env()
			got, problems := Parse(getenvOf(env))
			if len(problems) > 0 {
				t.Fatalf("Parse(%q): problems %q", env, problems)
			}
			if !reflect.DeepEqual(got, tt.a) {
				t.Errorf("Parse(%q) =\n%+v, want\n%+v", env, got, tt.a)
			}
			if again := got.Env(); !slices.Equal(again, env) {
				t.Errorf("encoded again: %q, want %q", again, env)
			}
		})
	}
}

// TestEnvOrder fixes the order of the variables: reproduce lines print
// them as Env gives them, and must not change from one version to the
// next.
func TestEnvOrder(t *testing.T) {
	var names []string
	for _, kv := range full.Env() {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
	}
	want := []string{EnvWiden, EnvRoute, EnvProfile, EnvInject, EnvStop, EnvOblivious, EnvMask, EnvUndoFiles,
		EnvSnapshots, EnvSnapshotCalls, EnvListAsWritten, EnvBatch, EnvLog}
	if !slices.Equal(names, want) {
		t.Errorf("Env names %q, want %q", names, want)
	}
	if got := full.Env()[1]; got != "ATOMICX_ROUTE=panic:example.com/m.F#handler:f.go:20:2;example.com/m.G#handler:g.go:3:2" {
		t.Errorf("route: %s", got)
	}
	if env := (Arming{}).Env(); env != nil {
		t.Errorf("the zero Arming sets %q", env)
	}
}

func TestInjectionString(t *testing.T) {
	for _, tt := range []struct {
		i    Injection
		want string
	}{
		{Injection{}, ""},
		{Injection{Fault: FaultError, Occurrence: 12, Site: "m.F#call:m/f.go:10:3"}, "error:12:m.F#call:m/f.go:10:3"},
		{Injection{Fault: FaultPanic, Always: true, Site: "m.F#entry"}, "panic:always:m.F#entry"},
		{Injection{Fault: FaultHandler, Always: true, Site: "m.F#handler:f.go:12:2"}, "handler:always:m.F#handler:f.go:12:2"},
	} {
		if got := tt.i.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.i, got, tt.want)
		}
		if tt.want == "" {
			continue
		}
		back, err := ParseInjection(tt.want)
		if err != nil || back != tt.i {
			t.Errorf("ParseInjection(%q) = %+v, %v; want %+v", tt.want, back, err, tt.i)
		}
	}
}

// TestMalformed: each malformed setting gets its message, and leaves
// the Arming as the runtime has always taken it.
func TestMalformed(t *testing.T) {
	const inject = "ATOMICX_INJECT="
	const wantForm = ": want FAULT:OCCURRENCE:SITE (OCCURRENCE a number from 1, or always), e.g. error:1:example.com/m.F#entry"
	tests := []struct {
		name, value string
		problem     string // the whole message
		want        Arming
	}{
		{EnvInject, "error:x:m.F#entry", inject + "error:x:m.F#entry" + wantForm, Arming{}},
		{EnvInject, "error:0:m.F#entry", inject + "error:0:m.F#entry" + wantForm, Arming{}},
		{EnvInject, "error:-1:m.F#entry", inject + "error:-1:m.F#entry" + wantForm, Arming{}},
		{EnvInject, "error:ALWAYS:m.F#entry", inject + "error:ALWAYS:m.F#entry" + wantForm, Arming{}},
		{EnvInject, "error:1:", inject + "error:1:" + wantForm, Arming{}},
		{EnvInject, "error:1", inject + "error:1" + wantForm, Arming{}},
		{EnvInject, "error", inject + "error" + wantForm, Arming{}},
		{EnvInject, "handler:always:", inject + "handler:always:" + wantForm, Arming{}},
		{EnvInject, "exit:1:m.F#entry", inject + "exit:1:m.F#entry: fault must be error or panic", Arming{}},
		{EnvInject, "ERROR:1:m.F#entry", inject + "ERROR:1:m.F#entry: fault must be error or panic", Arming{}},
		{EnvInject, "handler:1:m.F#handler:f.go:1:1", inject + "handler:1:m.F#handler:f.go:1:1: a handler is armed at every execution of its region: want handler:always:HANDLER", Arming{}},
		{EnvProfile, "0", "ATOMICX_PROFILE=0: want a positive number of occurrences", Arming{}},
		{EnvProfile, "x", "ATOMICX_PROFILE=x: want a positive number of occurrences", Arming{}},
		{EnvStop, "never", `ATOMICX_STOP=never: the only value is "absorbed"`, Arming{}},
		{EnvSnapshots, "some", "ATOMICX_SNAPSHOTS=some: want sampled, all, before-fault or none", Arming{Snapshots: SnapshotsAll}},
		{EnvSnapshotCalls, "2@m.F#entry;x@m.G#entry", `ATOMICX_SNAPSHOT_CALLS: malformed calls "x@m.G#entry": want N@SITE, or runs such as 1-9,12@SITE`, Arming{SnapshotCalls: ";"}},
		{EnvSnapshotCalls, "0@m.F#entry", `ATOMICX_SNAPSHOT_CALLS: malformed calls "0@m.F#entry": want N@SITE, or runs such as 1-9,12@SITE`, Arming{SnapshotCalls: ";"}},
		{EnvSnapshotCalls, "5-3@m.F#entry", `ATOMICX_SNAPSHOT_CALLS: malformed calls "5-3@m.F#entry": want N@SITE, or runs such as 1-9,12@SITE`, Arming{SnapshotCalls: ";"}},
		{EnvSnapshotCalls, "5-@m.F#entry", `ATOMICX_SNAPSHOT_CALLS: malformed calls "5-@m.F#entry": want N@SITE, or runs such as 1-9,12@SITE`, Arming{SnapshotCalls: ";"}},
		{EnvSnapshotCalls, "3", `ATOMICX_SNAPSHOT_CALLS: malformed calls "3": want N@SITE, or runs such as 1-9,12@SITE`, Arming{SnapshotCalls: ";"}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			got, problems := Parse(getenvOf([]string{tt.name + "=" + tt.value}))
			if len(problems) != 1 || problems[0] != tt.problem {
				t.Errorf("problems %q, want %q", problems, tt.problem)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestProblemsInEnvOrder: every malformed setting is reported, in the
// order of Env.
func TestProblemsInEnvOrder(t *testing.T) {
	_, problems := Parse(getenvOf([]string{"ATOMICX_SNAPSHOTS=some", "ATOMICX_INJECT=x", "ATOMICX_PROFILE=0"}))
	var names []string
	for _, p := range problems {
		name, _, _ := strings.Cut(p, "=")
		names = append(names, name)
	}
	if want := []string{EnvProfile, EnvInject, EnvSnapshots}; !slices.Equal(names, want) {
		t.Errorf("problems %q, want them for %q", problems, want)
	}
}

// TestLenient: what the runtime has always let pass, it still does.
func TestLenient(t *testing.T) {
	for _, tt := range []struct {
		env  []string
		want Arming
	}{
		{[]string{"ATOMICX_MASK=a#entry;;b#entry;"}, Arming{Mask: []string{"a#entry", "b#entry"}}},
		{[]string{"ATOMICX_MASK=;"}, Arming{}},
		{[]string{"ATOMICX_ROUTE=panic:"}, Arming{}},
		{[]string{"ATOMICX_LIST_AS_WRITTEN=yes"}, Arming{}},
		{[]string{"ATOMICX_SNAPSHOT_CALLS=;"}, Arming{SnapshotCalls: ";"}},
	} {
		got, problems := Parse(getenvOf(tt.env))
		if len(problems) > 0 || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %+v, %q; want %+v", tt.env, got, problems, tt.want)
		}
	}
}

func TestParseCalls(t *testing.T) {
	got, err := ParseCalls("3-5,9,1-2@a#entry;;7@b#entry;2@a#entry")
	want := map[string][]Run{"a#entry": {{3, 5}, {9, 9}, {1, 2}, {2, 2}}, "b#entry": {{7, 7}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseCalls = %v, %v; want %v", got, err, want)
	}
	if got, err := ParseCalls(";"); err != nil || got == nil || len(got) != 0 {
		t.Errorf(`ParseCalls(";") = %v, %v; want an empty map`, got, err)
	}
}
