package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/campaign"
	"github.com/atomicx/atomicx/question/handlers"
	"github.com/atomicx/atomicx/rt/arm"
)

// handlerRecords are a handlers campaign over two tests and two arms of
// one region: the Is arm is source-independent and purely resilient, the
// err != nil arm makes TestB fail when armed.
func handlerRecords() []*campaign.Record {
	ev := func(id, usage string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"event":"handler","pid":1,"site":%q,"func":"example.com/m.F","pos":"example.com/m/f.go:%s","region":"example.com/m/f.go:2:9","usage":%q,"handler_kind":"fallback","predicate":"p"}`,
			id, strings.TrimPrefix(id, "example.com/m.F#handler:f.go:"), usage))
	}
	const isArm, nilArm = "example.com/m.F#handler:f.go:3:2", "example.com/m.F#handler:f.go:5:9"
	hdr := &campaign.Record{Kind: "campaign", Campaign: &campaign.Header{Version: "v1.2.3", Module: "example.com/m", Command: []string{"atomicx", "handlers", "./..."}}}
	a := &campaign.Record{Kind: "profile", Package: "example.com/m", Test: "TestA", Status: campaign.Passed,
		Events: []json.RawMessage{ev(isArm, "executed"), ev(nilArm, "executed"), ev(isArm, "white")}}
	b := &campaign.Record{Kind: "profile", Package: "example.com/m", Test: "TestB", Status: campaign.Passed,
		Events: []json.RawMessage{ev(isArm, "executed"), ev(nilArm, "executed"), ev(isArm, "pink"), ev(nilArm, "pink")}}
	recs := []*campaign.Record{hdr, a, b}
	for _, run := range []struct {
		prof       *campaign.Record
		id, status string
	}{
		{a, isArm, campaign.Passed}, {b, isArm, campaign.Passed}, {a, nilArm, campaign.Passed}, {b, nilArm, campaign.Failed},
	} {
		recs = append(recs, &campaign.Record{Kind: "experiment", Package: run.prof.Package, Test: run.prof.Test, Arming: arm.Arming{Inject: arm.Injection{Site: run.id, Fault: "handler"}},
			Status: run.status, Fired: true})
	}
	return recs
}

func TestHandlersReport(t *testing.T) {
	r := Handlers(handlerRecords(), nil)
	want := HandlersSummary{Handlers: 2, Executed: 2, PurelyResilient: 1, NotPurely: 1, SourceIndependent: 1, ProfileRuns: 2, Runs: 4, Stopping: 2}
	if r.Summary != want {
		t.Errorf("summary %+v, want %+v", r.Summary, want)
	}
	if len(r.Handlers) != 2 || r.Handlers[0].Pos != "example.com/m/f.go:3:2" {
		t.Fatalf("handlers %+v", r.Handlers)
	}
	row := r.Handlers[1].Tests[1]
	if row.Test != "TestB" || row.Outcome != "fail" || strings.Join(row.Usages, ",") != "pink" ||
		!strings.Contains(row.Reproduce, "ATOMICX_INJECT='handler:always:example.com/m.F#handler:f.go:5:9'") || !strings.Contains(row.Reproduce, "-run '^TestB$' example.com/m") {
		t.Errorf("TestB's row of the err != nil arm: %+v", row)
	}

	var text bytes.Buffer
	WriteHandlersText(&text, r, nil)
	for _, s := range []string{"atomicx v1.2.3", "error handlers: 2 profile runs, 4 runs with a handler armed",
		"purely resilient           1", "example.com/m/f.go:5:9: example.com/m.F: fallback handler of p: unknown; not purely resilient",
		"example.com/m TestB: pink; armed: fail", "reproduce: "} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text report lacks %q:\n%s", s, text.String())
		}
	}
	var js bytes.Buffer
	if err := WriteHandlersJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var back HandlersReport
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Summary != want || back.Provenance == nil || back.Question != "handlers" {
		t.Errorf("JSON round trip: %v, %+v", err, back)
	}
	var sarif bytes.Buffer
	if err := WriteHandlersSARIF(&sarif, r, nil, SARIFOptions{Version: "v1.2.3"}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID  string
				Message struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Results) != 1 ||
		log.Runs[0].Results[0].RuleID != "atomicx/not-purely-resilient-handler" || !strings.Contains(log.Runs[0].Results[0].Message.Text, "TestB") {
		t.Errorf("SARIF: %v\n%s", err, sarif.String())
	}
	var html bytes.Buffer
	if err := WriteHandlersHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"<h1>Error handlers</h1>", "not purely resilient", `<td class="fail">fail</td>`, "atomicx v1.2.3"} {
		if !strings.Contains(html.String(), s) {
			t.Errorf("HTML report lacks %q", s)
		}
	}
}

// TestHandlersReportLeads: the text report leads with the handlers that
// stop the error, then the tests that do not check an error passed on,
// then the handlers that pass it on, each with one reproduce command,
// and explains the words it shows.
func TestHandlersReportLeads(t *testing.T) {
	const isArm, nilArm = "example.com/m.F#handler:f.go:3:2", "example.com/m.F#handler:f.go:5:9"
	recs := handlerRecords()
	for _, r := range recs {
		for i, e := range r.Events {
			if strings.Contains(string(e), `"site":"`+nilArm+`"`) {
				r.Events[i] = json.RawMessage(strings.Replace(string(e), `"handler_kind":"fallback"`, `"handler_kind":"propagate"`, 1))
			}
		}
	}
	// A third test, whose call succeeded, passes with the err != nil arm
	// armed: it does not check the error passed on; TestB failed armed.
	c := &campaign.Record{Kind: "profile", Package: "example.com/m", Test: "TestC", Status: campaign.Passed,
		Events: []json.RawMessage{json.RawMessage(`{"event":"handler","pid":1,"site":"` + nilArm + `","func":"example.com/m.F","pos":"example.com/m/f.go:5:9","region":"example.com/m/f.go:2:9","usage":"executed","handler_kind":"propagate","predicate":"p"}`),
			json.RawMessage(`{"event":"handler","pid":1,"site":"` + nilArm + `","func":"example.com/m.F","pos":"example.com/m/f.go:5:9","region":"example.com/m/f.go:2:9","usage":"pink","handler_kind":"propagate","predicate":"p"}`)}}
	recs = append(recs, c,
		&campaign.Record{Kind: "experiment", Package: "example.com/m", Test: "TestC", Arming: arm.Arming{Inject: arm.Injection{Site: nilArm, Fault: "handler"}}, Status: campaign.Passed, Fired: true})
	// A fuzz target passing the same way is left out: it looks for
	// crashes, not at results.
	fuzz := &campaign.Record{Kind: "profile", Package: "example.com/m", Test: "FuzzC", Status: campaign.Passed, Events: c.Events}
	recs = append(recs, fuzz,
		&campaign.Record{Kind: "experiment", Package: "example.com/m", Test: "FuzzC", Arming: arm.Arming{Inject: arm.Injection{Site: nilArm, Fault: "handler"}}, Status: campaign.Passed, Fired: true})
	// TestA had an error reach the Is arm of the same function: passing
	// with the err != nil arm armed, it is not counted.
	for _, rec := range recs {
		if rec.Kind == "profile" && rec.Test == "TestA" {
			rec.Events = append(rec.Events, json.RawMessage(`{"event":"handler","pid":1,"site":"`+nilArm+`","func":"example.com/m.F","pos":"example.com/m/f.go:5:9","region":"example.com/m/f.go:2:9","usage":"pink","handler_kind":"propagate","predicate":"p"}`))
		}
	}
	r := Handlers(recs, nil)
	if s := r.Summary; s.Stopping != 1 || s.PassingOn != 1 || s.Unchecked != 1 {
		t.Errorf("summary %+v", s)
	}
	if u := r.Handlers[1].Unchecked; len(u) != 1 || u[0] != "example.com/m TestC" {
		t.Errorf("unchecked tests of the err != nil arm: %v", u)
	}
	var text bytes.Buffer
	WriteHandlersText(&text, r, nil)
	out := text.String()
	order := []string{
		"  stopping the error         1\n  passing the error on       1\n  tests not checking it      1\n",
		"Handlers that stop the error (1): ",
		"example.com/m/f.go:3:2: example.com/m.F: fallback handler of p",
		"Tests that do not check an error passed on (1): ",
		"example.com/m/f.go:5:9: example.com/m.F: propagate handler of p: example.com/m TestC\n",
		"Handlers that pass the error on (1): ",
		"example.com/m/f.go:5:9: example.com/m.F: propagate handler of p: unknown; not purely resilient\n",
		"-run '^TestB$'",
		"Words used above:\n",
		"  propagate: ", "  fallback: ", "  pink / white / blue: ", "  reproduce: ",
	}
	at := 0
	for _, s := range order {
		i := strings.Index(out[at:], s)
		if i < 0 {
			t.Fatalf("text report lacks %q after offset %d:\n%s", s, at, out)
		}
		at += i + len(s)
	}
	if n := strings.Count(out, "\t\treproduce: "); n != 2 {
		t.Errorf("%d reproduce commands, want one per handler:\n%s", n, out)
	}
	for _, s := range []string{"  translate: ", "  widening: ", "  routing: "} {
		if strings.Contains(out, s) {
			t.Errorf("the legend explains %q, which the report does not show", s)
		}
	}
	var html bytes.Buffer
	if err := WriteHandlersHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`<h2 id="unchecked">`, "example.com/m TestC</li>", `<span title="the error, or a value made from it`, "<dt>ignore</dt>", "<dt>routing</dt>"} {
		if !strings.Contains(html.String(), s) {
			t.Errorf("HTML report lacks %q", s)
		}
	}
	if n := strings.Count(html.String(), "<code>ATOMICX_POLICY=") + strings.Count(html.String(), "<code>ATOMICX_INJECT="); n != 6 {
		t.Errorf("HTML has %d reproduce commands, want one per run (6, the fuzz target's included)", n)
	}
}

// TestHandlersReportWidening: the Is arm of handlerRecords can be
// widened, and both its widened runs pass.
func TestHandlersReportWidening(t *testing.T) {
	const isArm = "example.com/m.F#handler:f.go:3:2"
	recs := handlerRecords()
	for _, r := range recs {
		for i, e := range r.Events {
			if strings.Contains(string(e), `"site":"`+isArm+`"`) {
				r.Events[i] = json.RawMessage(strings.Replace(string(e), `"predicate":"p"`, `"predicate":"p","widened":"err != nil"`, 1))
			}
		}
	}
	for _, test := range []string{"TestA", "TestB"} {
		recs = append(recs, &campaign.Record{Kind: "experiment", Package: "example.com/m", Test: test, Arming: arm.Arming{Inject: arm.Injection{Site: isArm, Fault: handlers.WidenFaultWord}}, Status: campaign.Passed})
	}
	r := Handlers(recs, nil)
	if s := r.Summary; s.Widenable != 1 || s.WideningKept != 1 || s.WidenRuns != 2 || s.Runs != 4 {
		t.Errorf("summary %+v", s)
	}
	if w := r.Handlers[0].Widening; w == nil || w.Status != handlers.WidenKept || w.Widened != "err != nil" || r.Handlers[1].Widening != nil {
		t.Errorf("widenings %+v, %+v", r.Handlers[0].Widening, r.Handlers[1].Widening)
	}
	if r.Together == nil || r.Together.Status != handlers.WidenKept || len(r.Together.Tests) != 2 {
		t.Errorf("together %+v", r.Together)
	}
	var text bytes.Buffer
	WriteHandlersText(&text, r, nil)
	for _, s := range []string{"4 runs with a handler armed, 2 runs with arms widened", "widenable (typed arms)     1", "widening kept              1",
		"example.com/m TestA: white; armed: pass; widened: pass", "\twidening to err != nil: kept\n", "kept widenings together (1 handlers, 2 tests): kept"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text report lacks %q:\n%s", s, text.String())
		}
	}
	var js bytes.Buffer
	if err := WriteHandlersJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"widening": {`, `"status": "kept"`, `"widenable": 1`, `"widened_together": {`} {
		if !strings.Contains(js.String(), s) {
			t.Errorf("JSON report lacks %q", s)
		}
	}
	var sarif bytes.Buffer
	if err := WriteHandlersSARIF(&sarif, r, nil, SARIFOptions{Version: "v1.2.3"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sarif.String(), `"ruleId": "atomicx/widenable-handler"`) {
		t.Errorf("SARIF lacks the widenable handler:\n%s", sarif.String())
	}
	var html bytes.Buffer
	if err := WriteHandlersHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Widening to <code>err != nil</code>: <b>kept</b>", "<h2 id=\"widened-together\">", "<th>widened</th>"} {
		if !strings.Contains(html.String(), s) {
			t.Errorf("HTML report lacks %q", s)
		}
	}
}

func TestHandlersReportRouting(t *testing.T) {
	const nilArm = "example.com/m.F#handler:f.go:5:9"
	recs := handlerRecords()
	for _, r := range recs {
		for i, e := range r.Events {
			if strings.Contains(string(e), `"site":"`+nilArm+`"`) {
				r.Events[i] = json.RawMessage(strings.Replace(string(e), `"predicate":"p"`, `"predicate":"p","route":"load(name)"`, 1))
			}
			// TestA's error reached the err != nil arm: it is
			// source-independent (TestB, which fails armed, has a pink usage only).
			if r.Test == "TestA" && strings.Contains(string(e), `"site":"`+nilArm+`"`) {
				r.Events = append(r.Events, json.RawMessage(strings.Replace(string(r.Events[i]), `"usage":"executed"`, `"usage":"white"`, 1)))
			}
		}
	}
	for _, run := range []struct{ test, fault, status string }{
		{"TestA", handlers.RouteFaultWord, campaign.Passed},
		{"TestB", handlers.RouteFaultWord, campaign.Failed},
		{"TestB", handlers.RoutePanicFaultWord, campaign.Passed},
	} {
		recs = append(recs, &campaign.Record{Kind: "experiment", Package: "example.com/m", Test: run.test, Arming: arm.Arming{Inject: arm.Injection{Site: nilArm, Fault: run.fault}}, Status: run.status})
	}
	r := Handlers(recs, nil)
	if s := r.Summary; s.Routable != 1 || s.RoutingKept != 0 || s.RouteRuns != 3 || s.Runs != 4 {
		t.Errorf("summary %+v", s)
	}
	rt := r.Handlers[1].Routing
	if rt == nil || rt.Status != handlers.WidenNotOffered || rt.Call != "load(name)" || !strings.Contains(rt.Why, "TestB expects the panic to propagate") ||
		!strings.HasPrefix(rt.Reproduce, "ATOMICX_ROUTE='"+nilArm+"' ") || r.Handlers[0].Routing != nil {
		t.Errorf("routings %+v, %+v", r.Handlers[0].Routing, rt)
	}
	if r.RoutedTogether != nil {
		t.Errorf("routed together %+v, want none: nothing kept", r.RoutedTogether)
	}
	var text bytes.Buffer
	WriteHandlersText(&text, r, nil)
	for _, s := range []string{", 3 runs with panics routed", "routable (err != nil arms) 1", "routing kept               0",
		"example.com/m TestB: pink; armed: fail; routed: fail; not routed: pass",
		"\trouting a panic of load(name) to the arm: not offered (example.com/m TestB expects the panic to propagate: routed, it fails)\n"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text report lacks %q:\n%s", s, text.String())
		}
	}
	var js bytes.Buffer
	if err := WriteHandlersJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"routing": {`, `"status": "not offered"`, `"call": "load(name)"`, `"routable": 1`, `"routed": "fail"`, `"unrouted": "pass"`} {
		if !strings.Contains(js.String(), s) {
			t.Errorf("JSON report lacks %q", s)
		}
	}
	var html bytes.Buffer
	if err := WriteHandlersHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	if s := "Routing a panic of <code>load(name)</code> to the arm: <b>not offered</b>"; !strings.Contains(html.String(), s) {
		t.Errorf("HTML report lacks %q", s)
	}

	// Kept when TestB passes routed: the SARIF log notes it.
	for _, rec := range recs {
		if rec.Test == "TestB" && rec.Arming.Inject.Fault == handlers.RouteFaultWord {
			rec.Status = campaign.Passed
		}
	}
	r = Handlers(recs, nil)
	if rt := r.Handlers[1].Routing; rt.Status != handlers.WidenKept || r.RoutedTogether == nil || r.RoutedTogether.Status != handlers.WidenKept {
		t.Fatalf("routing %+v, together %+v", rt, r.RoutedTogether)
	}
	var sarif bytes.Buffer
	if err := WriteHandlersSARIF(&sarif, r, nil, SARIFOptions{Version: "v1.2.3"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sarif.String(), `"ruleId": "atomicx/routable-handler"`) {
		t.Errorf("SARIF lacks the routable handler:\n%s", sarif.String())
	}
}

// TestHandlersReportSourceCounted: the report says which white tests the
// source verdict rests on, and lists apart, with the reason, a white
// test that failed on a call it expected to succeed.
func TestHandlersReportSourceCounted(t *testing.T) {
	const id = "example.com/m.F#handler:f.go:5:9"
	ev := func(usage string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"event":"handler","pid":1,"site":%q,"func":"example.com/m.F","pos":"example.com/m/f.go:5:9","region":"example.com/m/f.go:2:9","usage":%q,"handler_kind":"propagate","predicate":"err != nil"}`, id, usage))
	}
	white := json.RawMessage(fmt.Sprintf(`{"event":"white","pid":1,"site":%q,"at":1}`, id))
	var recs []*campaign.Record
	for _, tt := range []struct{ test, status, output string }{
		{"TestA", campaign.Passed, ""},
		{"TestB", campaign.Failed, "    f_test.go:9: err: atomicx: injected error at " + id + " (example.com/m/f.go:5:9), occurrence 2\n"},
		{"TestC", campaign.Failed, "    f_test.go:19: want error X, got atomicx: injected error at " + id + " (example.com/m/f.go:5:9), occurrence 1\n"},
	} {
		recs = append(recs, &campaign.Record{Kind: "profile", Package: "example.com/m", Test: tt.test, Status: campaign.Passed,
			Events: []json.RawMessage{ev("executed"), ev("white"), white, ev("pink")}},
			&campaign.Record{Kind: "experiment", Package: "example.com/m", Test: tt.test, Arming: arm.Arming{Inject: arm.Injection{Site: id, Fault: "handler"}}, Status: tt.status, Fired: true, Output: tt.output})
	}
	r := Handlers(recs, nil)
	h := r.Handlers[0]
	if h.Source != handlers.SourceDependent || strings.Join(h.SourceTests, ",") != "example.com/m TestA,example.com/m TestC" {
		t.Errorf("source %s from %v, want source-dependent from TestA and TestC", h.Source, h.SourceTests)
	}
	if b := h.Tests[1]; b.SourceCounted || !strings.Contains(b.NotCounted, "execution 2 of the region") {
		t.Errorf("TestB's row %+v: want not counted, it failed on execution 2", b)
	}
	var text bytes.Buffer
	WriteHandlersText(&text, r, nil)
	for _, s := range []string{
		"\texample.com/m TestB: pink, white; armed: fail\n\t\tnot counted for the source verdict: it failed on the armed error of execution 2 of the region, where the profile run had no error reach the arm: the test expected that call to succeed\n",
		"\tsource verdict from: example.com/m TestA, example.com/m TestC\n",
		"  source verdict from: the white tests",
	} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text report lacks %q:\n%s", s, text.String())
		}
	}
	var js bytes.Buffer
	if err := WriteHandlersJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"source_tests": [`, `"source_counted": true`, `"not_counted": "it failed on the armed error of execution 2`} {
		if !strings.Contains(js.String(), s) {
			t.Errorf("JSON report lacks %q", s)
		}
	}
	var html bytes.Buffer
	if err := WriteHandlersHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Source verdict from: example.com/m TestA, example.com/m TestC.", "not counted for the source verdict: it failed on"} {
		if !strings.Contains(html.String(), s) {
			t.Errorf("HTML report lacks %q", s)
		}
	}
	// The SARIF result shows a run that counted, not TestB's.
	var sarif bytes.Buffer
	if err := WriteHandlersSARIF(&sarif, r, nil, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sarif.String(), "With it armed, TestC of example.com/m: fail.") {
		t.Errorf("SARIF message does not show TestC's run:\n%s", sarif.String())
	}
}
