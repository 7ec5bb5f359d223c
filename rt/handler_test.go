package rt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hdHandlers are the arms of one region: if errors.Is(err, io.EOF)
// {…} else if err != nil {…}, as instrumented code declares them.
var hdHandlers [2]Handler

func hdReset() {
	hdHandlers = [2]Handler{
		{ID: "m.F#handler:f.go:3:2", Func: "m.F", Pos: "m/f.go:3:2", Region: "m/f.go:2:12", Kind: "fallback", Predicate: "errors.Is(err, io.EOF)"},
		{ID: "m.F#handler:f.go:5:9", Func: "m.F", Pos: "m/f.go:5:9", Region: "m/f.go:2:12", Kind: "propagate", Predicate: "err != nil"},
	}
}

// hdRegion is the instrumented region and its arms: it returns which arm
// ran, 0 for none.
func hdRegion(call func() error) (arm int, err error) {
	if err = Region(hdHandlers[0:2], nil, func(i int) error {
		switch i {
		case 0:
			return HandlerWrap(&hdHandlers[0], io.EOF)
		case 1:
			return HandlerError(&hdHandlers[1])
		}
		return nil
	}); err == nil {
		err = call()
	}
	if Arm(&hdHandlers[0], err, errors.Is(err, io.EOF)) {
		return 1, err
	} else if Arm(&hdHandlers[1], err, err != nil) {
		return 2, err
	}
	return 0, err
}

func TestHandlerUsages(t *testing.T) {
	hdReset()
	logPath := filepath.Join(t.TempDir(), "events.jsonl")
	useSettings(t, parseSettings(logPath, ""))
	campaign.profile = 3 // a profile run: executed regions are logged too
	ran := 0
	ok := func() error { ran++; return nil }
	other := func() error { ran++; return os.ErrNotExist }
	// A hot loop: the usages are logged once each.
	for range 100 {
		hdRegion(ok)
		hdRegion(other)
	}
	if ran != 200 {
		t.Fatalf("the region ran %d times, want 200: nothing is armed", ran)
	}
	got := map[string][]string{}
	var whiteAt []float64
	whiteMore := 0
	for _, e := range readEvents(t, logPath) {
		if e["event"] == "white" {
			if e["site"] != "m.F#handler:f.go:5:9" {
				t.Errorf("white execution of %v, which saw no white usage", e["site"])
			}
			if e["more"] == true {
				whiteMore++
			} else {
				whiteAt = append(whiteAt, e["at"].(float64))
			}
			continue
		}
		if e["event"] != "handler" {
			t.Errorf("unexpected event %v", e)
			continue
		}
		got[e["site"].(string)] = append(got[e["site"].(string)], e["usage"].(string))
		if e["region"] != "m/f.go:2:12" || e["handler_kind"] == "" || e["predicate"] == "" {
			t.Errorf("event %v lacks the region, kind or predicate", e)
		}
	}
	want := map[string][]string{
		// The EOF arm saw no error, then another error it does not handle.
		"m.F#handler:f.go:3:2": {"executed", "pink", "blue"},
		// The err != nil arm saw no error, then handled the other one.
		"m.F#handler:f.go:5:9": {"executed", "pink", "white"},
	}
	for id, usages := range want {
		if strings.Join(got[id], " ") != strings.Join(usages, " ") {
			t.Errorf("%s: usages %v, want %v", id, got[id], usages)
		}
	}
	// The white executions are numbered as an armed run numbers its
	// faults: every second one, up to the bound, then one "more".
	if len(whiteAt) != maxWhitesLogged || whiteAt[0] != 2 || whiteAt[len(whiteAt)-1] != 2*maxWhitesLogged || whiteMore != 1 {
		t.Errorf("white executions %v and %d more events, want 2, 4, … %d and one", whiteAt, whiteMore, 2*maxWhitesLogged)
	}
}

// TestHandlerUsagesNotInExperiments: a run that arms an error fault logs
// no usage of the handlers its regions run, which only profile runs and
// handler runs are read for; a run with nothing armed still does.
func TestHandlerUsagesNotInExperiments(t *testing.T) {
	for _, tt := range []struct {
		inject string
		want   int
	}{{"error:1:m.G#entry", 0}, {"", 2}} {
		hdReset()
		logPath := filepath.Join(t.TempDir(), "events.jsonl")
		useSettings(t, parseSettings(logPath, tt.inject))
		hdRegion(func() error { return os.ErrNotExist })
		n := 0
		for _, e := range readEvents(t, logPath) {
			if e["event"] == "handler" {
				n++
			}
		}
		if n != tt.want {
			t.Errorf("armed %q: %d handler events, want %d", tt.inject, n, tt.want)
		}
	}
}

func TestHandlerArmed(t *testing.T) {
	tests := []struct {
		name    string
		inject  string
		wantArm int
		wantRan int
		check   func(error) bool
	}{
		{"nothing armed", "", 0, 3, func(err error) bool { return err == nil }},
		{"Is arm: wraps the sentinel, recognisably injected", "handler:always:m.F#handler:f.go:3:2", 1, 0, func(err error) bool {
			var f *InjectedFault
			return errors.Is(err, io.EOF) && errors.As(err, &f) && f.Site == "m.F#handler:f.go:3:2"
		}},
		{"err != nil arm", "handler:always:m.F#handler:f.go:5:9", 2, 0, func(err error) bool {
			var f *InjectedFault
			return errors.As(err, &f) && !errors.Is(err, io.EOF)
		}},
		{"another handler armed", "handler:always:m.G#handler:g.go:1:1", 0, 3, func(err error) bool { return err == nil }},
		{"a site armed, not a handler", "error:1:m.F#entry", 0, 3, func(err error) bool { return err == nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdReset()
			logPath := filepath.Join(t.TempDir(), "events.jsonl")
			useSettings(t, parseSettings(logPath, tt.inject))
			ran := 0
			for range 3 { // always: every execution of the region
				arm, err := hdRegion(func() error { ran++; return nil })
				if arm != tt.wantArm || !tt.check(err) {
					t.Fatalf("arm %d, error %v; want arm %d", arm, err, tt.wantArm)
				}
			}
			if ran != tt.wantRan {
				t.Errorf("the region ran %d times, want %d", ran, tt.wantRan)
			}
			injects := 0
			var armedAt []float64
			for _, e := range readEvents(t, logPath) {
				if e["event"] == "armed" {
					armedAt = append(armedAt, e["at"].(float64))
				}
				if e["event"] == "inject" {
					injects++
					if e["kind"] != "handler" || e["fault"] != "handler" {
						t.Errorf("inject event %v", e)
					}
				}
			}
			if want := min(tt.wantArm, 1); injects != want {
				t.Errorf("%d inject events, want %d", injects, want)
			}
			// Every skipped execution, numbered as the fault's occurrence.
			if want := map[bool]string{true: "[1 2 3]", false: "[]"}[tt.wantArm > 0]; fmt.Sprint(armedAt) != want {
				t.Errorf("armed executions %v, want %s", armedAt, want)
			}
		})
	}
}

func TestHandlerNotInjectable(t *testing.T) {
	hdReset()
	hdHandlers[1].NotInjectable = "test"
	useSettings(t, parseSettings(filepath.Join(t.TempDir(), "events.jsonl"), "handler:always:m.F#handler:f.go:5:9"))
	if arm, err := hdRegion(func() error { return nil }); arm != 0 || err != nil {
		t.Errorf("a handler that is not injectable was armed: arm %d, %v", arm, err)
	}
}

// Without a fault function, Region makes an armed arm's fault itself: its
// handler's error, as HandlerError makes it, with the occurrence counted.
func TestRegionDefaultFault(t *testing.T) {
	tests := []struct {
		name     string
		inject   string
		wantSite string // "" for no fault
	}{
		{"first arm armed", "handler:always:m.F#handler:f.go:3:2", "m.F#handler:f.go:3:2"},
		{"second arm armed", "handler:always:m.F#handler:f.go:5:9", "m.F#handler:f.go:5:9"},
		{"another handler armed", "handler:always:m.G#handler:g.go:1:1", ""},
		{"nothing armed", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdReset()
			useSettings(t, parseSettings(filepath.Join(t.TempDir(), "events.jsonl"), tt.inject))
			for occ := uint64(1); occ <= 2; occ++ {
				err := Region(hdHandlers[0:2], nil, nil)
				if tt.wantSite == "" {
					if err != nil {
						t.Fatalf("Region = %v, want nil", err)
					}
					continue
				}
				var f *InjectedFault
				if !errors.As(err, &f) || f.Site != tt.wantSite || f.Wrapped != nil || f.Panic || f.Occurrence != occ {
					t.Fatalf("Region = %#v, want the error of %s, occurrence %d", err, tt.wantSite, occ)
				}
			}
		})
	}
}

func BenchmarkHandlerDisabled(b *testing.B) {
	hdReset()
	useSettings(b, settings{})
	ok := func() error { return nil }
	for b.Loop() {
		hdRegion(ok)
	}
}

var hdRecover = [1]Handler{{ID: "m.G#handler:g.go:4:3", Func: "m.G", Pos: "m/g.go:4:3", Region: "m/g.go:3:2", Kind: "fallback", Predicate: "r := recover(); r != nil"}}

// hdGuarded is an instrumented function with a deferred recover handler:
// it returns what the handler recovered, nil if nothing.
func hdGuarded(body func()) (got any) {
	defer func() {
		if r := recover(); ArmRecover(&hdRecover[0], r, r != nil) {
			got = r
		}
	}()
	RecoverRegion(&hdRecover[0])
	body()
	return nil
}

func TestRecoverHandler(t *testing.T) {
	tests := []struct {
		name, inject string
		ran          bool
		injected     bool
		usages       string
	}{
		{"profile", "", true, false, "executed pink"},
		{"armed", "handler:always:m.G#handler:g.go:4:3", false, true, "white"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdRecover[0] = Handler{ID: hdRecover[0].ID, Func: "m.G", Pos: "m/g.go:4:3", Region: "m/g.go:3:2"}
			logPath := filepath.Join(t.TempDir(), "events.jsonl")
			useSettings(t, parseSettings(logPath, tt.inject))
			if tt.inject == "" {
				campaign.profile = 3
			}
			ran := false
			got := hdGuarded(func() { ran = true })
			f, _ := got.(*InjectedFault)
			if ran != tt.ran || (f != nil) != tt.injected || f != nil && (!f.Panic || f.Site != hdRecover[0].ID) {
				t.Errorf("region ran %v, recovered %v", ran, got)
			}
			var usages []string
			for _, e := range readEvents(t, logPath) {
				if e["event"] == "handler" {
					usages = append(usages, e["usage"].(string))
				}
			}
			if strings.Join(usages, " ") != tt.usages {
				t.Errorf("usages %v, want %s", usages, tt.usages)
			}
		})
	}
}

// hdParseError is the type a recover handler asserts, as toml's parse
// does with its ParseError.
type hdParseError struct{ line int }

// hdTyped is an instrumented function whose recover handler takes the
// panics of type hdParseError and panics again with the others.
func hdTyped(body func()) (got string) {
	defer func() {
		if r := recover(); ArmRecover(&hdRecover[0], r, r != nil) {
			if _, ok := r.(hdParseError); ok {
				got = "handled"
				return
			}
			panic(r)
		}
	}()
	RecoverRegionWith(&hdRecover[0], func() any { return *new(hdParseError) })
	body()
	return "ran"
}

func TestRecoverHandlerTyped(t *testing.T) {
	tests := []struct {
		name, inject, want string
	}{
		{"not armed", "", "ran"},
		{"armed: a value of the asserted type", "handler:always:m.G#handler:g.go:4:3", "handled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdRecover[0] = Handler{ID: hdRecover[0].ID, Func: "m.G", Pos: "m/g.go:4:3", Region: "m/g.go:3:2"}
			useSettings(t, parseSettings(filepath.Join(t.TempDir(), "events.jsonl"), tt.inject))
			if got := hdTyped(func() {}); got != tt.want {
				t.Errorf("hdTyped: %s, want %s", got, tt.want)
			}
		})
	}
}

func TestHandlerRouted(t *testing.T) {
	tests := []struct {
		name    string
		route   string // ATOMICX_ROUTE
		routes  string // the err != nil arm's Handler.Route
		wantArm int    // 2: the err != nil arm took a routed panic
		ran     bool   // the region's call ran
		panics  bool
	}{
		{"nothing routed", "", "load(name)", 0, true, false},
		{"routed: the panic reaches err != nil as an error", "m.F#handler:f.go:5:9", "load(name)", 2, false, false},
		{"not routed: the panic goes on", "panic:m.F#handler:f.go:5:9", "load(name)", 0, false, true},
		{"another handler routed", "m.G#handler:g.go:1:1", "load(name)", 0, true, false},
		{"listed, but its call cannot panic", "m.F#handler:f.go:5:9", "", 0, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdReset()
			hdHandlers[1].Route = tt.routes
			useSettings(t, parseSettings(filepath.Join(t.TempDir(), "events.jsonl"), ""))
			campaign.route, campaign.routeUnrouted = routeIDs(tt.route)
			ran := false
			var arm int
			var err error
			panicked := func() (p any) {
				defer func() { p = recover() }()
				arm, err = hdRegion(func() error { ran = true; return nil })
				return nil
			}()
			if f, ok := panicked.(*InjectedFault); (panicked != nil) != tt.panics || panicked != nil && (!ok || !f.Panic) {
				t.Fatalf("panicked with %v, want a panic %v", panicked, tt.panics)
			}
			var routed *RoutedPanic
			if arm != tt.wantArm || ran != tt.ran || (arm == 2) != errors.As(err, &routed) {
				t.Errorf("arm %d, error %v, call ran %v; want arm %d, ran %v", arm, err, ran, tt.wantArm, tt.ran)
			}
		})
	}
}

func TestHandlerWidened(t *testing.T) {
	tests := []struct {
		name     string
		widen    string // ATOMICX_WIDEN
		widened  string // the Is arm's Handler.Widened
		err      error
		wantArm  int
		wantWide bool // the arm found widened (looked up only for an error it does not take)
	}{
		{"nothing widened: another error goes to err != nil", "", "err != nil", os.ErrNotExist, 2, false},
		{"widened: the Is arm takes another error", "m.F#handler:f.go:3:2", "err != nil", os.ErrNotExist, 1, true},
		{"widened: its own error still", "m.F#handler:f.go:3:2", "err != nil", io.EOF, 1, false}, // held: not looked up
		{"widened: no error, no arm", "m.F#handler:f.go:3:2", "err != nil", nil, 0, false},
		{"another handler widened", "m.G#handler:g.go:1:1;m.F#handler:f.go:9:9", "err != nil", os.ErrNotExist, 2, false},
		{"listed among others", "m.G#handler:g.go:1:1;m.F#handler:f.go:3:2", "err != nil", os.ErrNotExist, 1, true},
		{"listed, but not widenable", "m.F#handler:f.go:3:2", "", os.ErrNotExist, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdReset()
			hdHandlers[0].Widened = tt.widened
			useSettings(t, parseSettings(filepath.Join(t.TempDir(), "events.jsonl"), ""))
			campaign.widen = siteIDs(tt.widen)
			if tt.widen == "" {
				useSettings(t, settings{}) // the runtime not even enabled
			}
			for range 2 { // the second time from the cached state
				arm, err := hdRegion(func() error { return tt.err })
				if arm != tt.wantArm || err != tt.err {
					t.Fatalf("arm %d, error %v; want arm %d and the region's own error", arm, err, tt.wantArm)
				}
			}
			if got := hdHandlers[0].wide.Load() == 2; got != tt.wantWide {
				t.Errorf("widened %v, want %v", got, tt.wantWide)
			}
		})
	}
}

// hdSwitchError is the type of hdSwitch's second case.
type hdSwitchError struct{}

func (*hdSwitchError) Error() string { return "switch" }

var hdSwitchArms [2]Handler

// hdSwitch is an instrumented type switch on a region's error, both of
// whose cases can be widened: it returns the case that ran, 0 for none.
//
//go:noinline
func hdSwitch(err error) int {
	switch WidenSwitch(hdSwitchArms[0:2], err, func(e error, arm int) bool {
		switch arm {
		case 1:
			switch e.(type) {
			case *os.PathError:
				return true
			}
		}
		return false
	}, func(arm int) error {
		switch arm {
		case 0:
			return new(os.PathError)
		case 1:
			return new(hdSwitchError)
		}
		return nil
	}).(type) {
	case *os.PathError:
		return 1
	case *hdSwitchError:
		return 2
	}
	return 0
}

func TestWidenSwitch(t *testing.T) {
	pathErr := &os.PathError{Op: "open", Path: "x", Err: os.ErrNotExist}
	tests := []struct {
		name  string
		widen string
		err   error
		want  int
	}{
		{"nothing widened", "", io.EOF, 0},
		{"the second case widened takes another error", "m.S#2", io.EOF, 2},
		{"but not one that the first case takes", "m.S#2", pathErr, 1},
		{"nor no error", "m.S#2", nil, 0},
		{"the first case widened takes every error", "m.S#1", &hdSwitchError{}, 1},
		{"its own error still", "m.S#2", &hdSwitchError{}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdSwitchArms = [2]Handler{
				{ID: "m.S#1", Func: "m.S", Kind: "fallback", Predicate: "case *os.PathError", Widened: "err != nil"},
				{ID: "m.S#2", Func: "m.S", Kind: "fallback", Predicate: "case *hdSwitchError", Widened: "err != nil"},
			}
			useSettings(t, parseSettings(filepath.Join(t.TempDir(), "events.jsonl"), ""))
			campaign.widen = siteIDs(tt.widen)
			if tt.widen == "" {
				useSettings(t, settings{})
			}
			if got := hdSwitch(tt.err); got != tt.want {
				t.Errorf("case %d ran, want %d", got, tt.want)
			}
		})
	}
}

// BenchmarkWidenSwitchDisabled is a type switch on an error through
// WidenSwitch while the runtime is not enabled; BenchmarkTypeSwitchPlain
// is the same switch uninstrumented.
func BenchmarkWidenSwitchDisabled(b *testing.B) {
	useSettings(b, settings{})
	err := error(&hdSwitchError{})
	for b.Loop() {
		hdSwitch(err)
	}
}

func BenchmarkTypeSwitchPlain(b *testing.B) {
	err := error(&hdSwitchError{})
	for b.Loop() {
		hdPlainSwitch(err)
	}
}

//go:noinline
func hdPlainSwitch(err error) int {
	switch err.(type) {
	case *os.PathError:
		return 1
	case *hdSwitchError:
		return 2
	}
	return 0
}

var hdCaseArms [2]Handler

// hdCase is an instrumented switch on a region's error:
// switch err { case nil: case io.EOF: … case os.ErrNotExist: … }. It
// returns the case that ran, 0 for none.
//
//go:noinline
func hdCase(err error) int {
	switch err {
	case nil:
	case ArmCase(&hdCaseArms[0], err, io.EOF):
		return 1
	case ArmCase(&hdCaseArms[1], err, os.ErrNotExist):
		return 2
	}
	return 0
}

func TestArmCase(t *testing.T) {
	tests := []struct {
		name   string
		widen  string
		err    error
		want   int
		usages string // of the two cases
	}{
		{"no error", "", nil, 0, " "},
		{"the first case", "", io.EOF, 1, "white "},
		{"the second case", "", os.ErrNotExist, 2, "blue white"},
		{"no case", "", os.ErrClosed, 0, "blue blue"},
		{"the second case widened takes another error", "m.C#2", os.ErrClosed, 2, "blue white"},
		{"but not the first case's", "m.C#2", io.EOF, 1, "white "},
		{"the first case widened takes the second's", "m.C#1", os.ErrNotExist, 1, "white "},
		{"widened, no error", "m.C#1", nil, 0, " "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdCaseArms = [2]Handler{
				{ID: "m.C#1", Func: "m.C", Kind: "fallback", Predicate: "case io.EOF", Widened: "err != nil"},
				{ID: "m.C#2", Func: "m.C", Kind: "fallback", Predicate: "case os.ErrNotExist", Widened: "err != nil"},
			}
			logPath := filepath.Join(t.TempDir(), "events.jsonl")
			useSettings(t, parseSettings(logPath, ""))
			campaign.widen = siteIDs(tt.widen)
			if got := hdCase(tt.err); got != tt.want {
				t.Errorf("case %d ran, want %d", got, tt.want)
			}
			usages := map[string]string{}
			for _, e := range readEvents(t, logPath) {
				usages[e["site"].(string)] = e["usage"].(string)
			}
			if got := usages["m.C#1"] + " " + usages["m.C#2"]; got != tt.usages {
				t.Errorf("usages %q, want %q", got, tt.usages)
			}
			useSettings(t, settings{}) // not enabled: the switch as written
			if got := hdCase(tt.err); tt.widen == "" && got != tt.want {
				t.Errorf("not enabled: case %d ran, want %d", got, tt.want)
			}
		})
	}
}

// BenchmarkArmCaseDisabled is a switch on an error through ArmCase while
// the runtime is not enabled; BenchmarkCasePlain is the same switch
// uninstrumented.
func BenchmarkArmCaseDisabled(b *testing.B) {
	useSettings(b, settings{})
	err := os.ErrNotExist
	for b.Loop() {
		hdCase(err)
	}
}

func BenchmarkCasePlain(b *testing.B) {
	err := os.ErrNotExist
	for b.Loop() {
		hdPlainCase(err)
	}
}

//go:noinline
func hdPlainCase(err error) int {
	switch err {
	case nil:
	case io.EOF:
		return 1
	case os.ErrNotExist:
		return 2
	}
	return 0
}

var hdCasesArms [2]Handler

// hdCases is an instrumented switch on a region's error with a case of
// two values: switch err { case nil: case io.EOF, io.ErrUnexpectedEOF: …
// case os.ErrNotExist: … }. It returns the case that ran, 0 for none.
//
//go:noinline
func hdCases(err error) int {
	switch err {
	case nil:
	case ArmCases(&hdCasesArms[0], err, io.EOF, Enabled() && (err == io.EOF || err == io.ErrUnexpectedEOF)), io.ErrUnexpectedEOF:
		return 1
	case ArmCase(&hdCasesArms[1], err, os.ErrNotExist):
		return 2
	}
	return 0
}

func TestArmCases(t *testing.T) {
	tests := []struct {
		name   string
		widen  string
		err    error
		want   int
		usages string // of the two cases, each the list of its usages
	}{
		{"no error", "", nil, 0, "[] []"},
		{"the first value", "", io.EOF, 1, "[white] []"},
		{"the second value: one usage, white", "", io.ErrUnexpectedEOF, 1, "[white] []"},
		{"the next case", "", os.ErrNotExist, 2, "[blue] [white]"},
		{"no case", "", os.ErrClosed, 0, "[blue] [blue]"},
		{"widened, it takes another error", "m.C#1", os.ErrClosed, 1, "[white] []"},
		{"widened, the second value", "m.C#1", io.ErrUnexpectedEOF, 1, "[white] []"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdCasesArms = [2]Handler{
				{ID: "m.C#1", Func: "m.C", Kind: "fallback", Predicate: "case io.EOF, io.ErrUnexpectedEOF", Widened: "err != nil"},
				{ID: "m.C#2", Func: "m.C", Kind: "fallback", Predicate: "case os.ErrNotExist", Widened: "err != nil"},
			}
			logPath := filepath.Join(t.TempDir(), "events.jsonl")
			useSettings(t, parseSettings(logPath, ""))
			campaign.widen = siteIDs(tt.widen)
			if got := hdCases(tt.err); got != tt.want {
				t.Errorf("case %d ran, want %d", got, tt.want)
			}
			usages := map[string][]string{}
			for _, e := range readEvents(t, logPath) {
				site := e["site"].(string)
				usages[site] = append(usages[site], e["usage"].(string))
			}
			if got := "[" + strings.Join(usages["m.C#1"], " ") + "] [" + strings.Join(usages["m.C#2"], " ") + "]"; got != tt.usages {
				t.Errorf("usages %s, want %s", got, tt.usages)
			}
			useSettings(t, settings{}) // not enabled: the switch as written
			if got := hdCases(tt.err); tt.widen == "" && got != tt.want {
				t.Errorf("not enabled: case %d ran, want %d", got, tt.want)
			}
		})
	}
}

// BenchmarkArmCasesDisabled is a switch on an error with a case of two
// values through ArmCases while the runtime is not enabled;
// BenchmarkCasesPlain is the same switch uninstrumented.
func BenchmarkArmCasesDisabled(b *testing.B) {
	useSettings(b, settings{})
	err := os.ErrNotExist
	for b.Loop() {
		hdCases(err)
	}
}

func BenchmarkCasesPlain(b *testing.B) {
	err := os.ErrNotExist
	for b.Loop() {
		hdPlainCases(err)
	}
}

//go:noinline
func hdPlainCases(err error) int {
	switch err {
	case nil:
	case io.EOF, io.ErrUnexpectedEOF:
		return 1
	case os.ErrNotExist:
		return 2
	}
	return 0
}

// TestRegionQuiet: once a region's execution has nothing left to tell
// the run (nothing armed nor routed there, its executions logged), Region
// answers without calling into the runtime; a run that arms a handler or
// routes panics asks at every execution. Under the race detector the flag,
// read without synchronization, is never set.
func TestRegionQuiet(t *testing.T) {
	for _, tt := range []struct {
		name, inject, route string
		profile             uint64
		quiet               bool
		executed            int // usages "executed" logged: a profile run's, one per arm
	}{
		{"nothing armed", "", "", 0, true, 0},
		// A profile run numbers every execution, for its white usages.
		{"a profile run", "", "", 3, false, 2},
		{"a site armed", "error:1:m.F#entry", "", 0, true, 0},
		{"a handler armed", "handler:always:m.G#handler:g.go:1:1", "", 0, false, 0},
		{"panics routed", "", "m.G#handler:g.go:1:1", 3, false, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hdReset()
			logPath := filepath.Join(t.TempDir(), "events.jsonl")
			useSettings(t, parseSettings(logPath, tt.inject))
			campaign.profile = tt.profile
			campaign.route, campaign.routeUnrouted = routeIDs(tt.route)
			for range 3 {
				if arm, err := hdRegion(func() error { return nil }); arm != 0 || err != nil {
					t.Fatalf("arm %d, error %v: nothing of the region is armed", arm, err)
				}
			}
			if want := tt.quiet && !raceEnabled; hdHandlers[0].quiet != want {
				t.Errorf("quiet = %t, want %t", hdHandlers[0].quiet, want)
			}
			executed := 0
			for _, e := range readEvents(t, logPath) {
				if e["usage"] == "executed" {
					executed++
				}
			}
			if executed != tt.executed {
				t.Errorf("%d executed usages logged, want %d", executed, tt.executed)
			}
		})
	}
}
