package campaign

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/rt/arm"
)

// TestLayoutKept: lines written when Record, Options and Header had a
// field for each question's data (a perturbation run's stack, its tests
// per point, leak confirmation's findings) read into the typed arming
// and the question's data, and are written back byte for byte: resumed
// journals, plans (whose ID hashes their bytes) and reports read the same.
func TestLayoutKept(t *testing.T) {
	tests := []struct {
		name, line string
		into       func() any
		check      func(t *testing.T, v any)
	}{
		{
			name: "a validation run of perturbation",
			line: `{"v":3,"kind":"experiment","pkg":"m","test":"TestA","site":"m.F#entry","fault":"error","mask":"m.G#entry","status":"pass","fired":true,"ms":12,"events":[{"event":"inject"}],"began":5,"session":4,"always":true,"oblivious":"m.G#entry","stack":"1@m.G#entry;2@m.H#entry"}`,
			into: func() any { return new(Record) },
			check: func(t *testing.T, v any) {
				r := v.(*Record)
				want := arm.Arming{Inject: arm.Injection{Site: "m.F#entry", Fault: "error", Always: true}, Mask: []string{"m.G#entry"}, Oblivious: []string{"m.G#entry"}}
				if !reflect.DeepEqual(r.Arming, want) {
					t.Errorf("arming %+v, want %+v", r.Arming, want)
				}
				if string(r.QuestionData) != `{"stack":"1@m.G#entry;2@m.H#entry"}` {
					t.Errorf("question's data %s", r.QuestionData)
				}
			},
		},
		{
			name: "a recheck of detection",
			line: `{"v":3,"kind":"recheck","pkg":"m","test":"TestA","site":"m.F#call:m/f.go:3:4","occurrence":2,"fault":"panic","snapshot":"1-3@m.F#entry","mask":"m.G#entry;m.H#entry","status":"fail","ms":7}`,
			into: func() any { return new(Record) },
			check: func(t *testing.T, v any) {
				r := v.(*Record)
				want := arm.Arming{Inject: arm.Injection{Site: "m.F#call:m/f.go:3:4", Occurrence: 2, Fault: "panic"}, SnapshotCalls: "1-3@m.F#entry",
					Mask: []string{"m.G#entry", "m.H#entry"}}
				if !reflect.DeepEqual(r.Arming, want) || r.QuestionData != nil {
					t.Errorf("arming %+v, question's data %s", r.Arming, r.QuestionData)
				}
				if k := r.Key(); k != "recheck\x00m\x00TestA\x00m.F#call:m/f.go:3:4\x002\x00panic\x00m.G#entry;m.H#entry" {
					t.Errorf("key %q", k)
				}
			},
		},
		{
			name: "a header of perturbation",
			line: `{"v":3,"kind":"campaign","campaign":{"module":"m","module_root":"/m","repo_root":"","dir":"/m","journal":"/j","patterns":["./..."],"policy":"","build_args":[],"atomicx":"/bin/atomicx","atomicx_version":"v1","go_version":"go1.24","command":["atomicx","perturb"],"date":"2026-01-01T00:00:00Z","plan":"ab","question":"perturb","one_at_a_time":true,"tests_per_point":2},"pkg":"","test":"","status":"","ms":0}`,
			into: func() any { return new(Record) },
			check: func(t *testing.T, v any) {
				h := v.(*Record).Campaign
				if h == nil || !h.OneAtATime || string(h.QuestionData) != `{"tests_per_point":2}` {
					t.Errorf("header %+v", h)
				}
			},
		},
		{
			name: "the options of a leak-confirmation plan",
			line: `{"timeout_ms":60000,"max_occurrences":3,"early_stop":true,"all_snapshots":false,"confirm":[{"func":"m.F","pos":"m/f.go:3:4"}]}`,
			into: func() any { return new(Options) },
			check: func(t *testing.T, v any) {
				o := v.(*Options)
				if o.TimeoutMs != 60000 || o.MaxOccur != 3 || !o.EarlyStop || string(o.QuestionData) != `{"confirm":[{"func":"m.F","pos":"m/f.go:3:4"}]}` {
					t.Errorf("options %+v, question's data %s", o, o.QuestionData)
				}
			},
		},
		{
			name:  "the options of a detection plan",
			line:  `{"timeout_ms":0,"max_occurrences":0,"early_stop":false,"all_snapshots":true}`,
			into:  func() any { return new(Options) },
			check: func(t *testing.T, v any) {},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.into()
			if err := json.Unmarshal([]byte(tt.line), v); err != nil {
				t.Fatal(err)
			}
			tt.check(t, v)
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.line {
				t.Errorf("written back as\n%s\nwant\n%s", b, tt.line)
			}
		})
	}
}

// TestQuestionDataRefused: a record keeps of its arming only what tells
// runs apart, and a question's data is an object of keys of its own.
func TestQuestionDataRefused(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"an arming's log", Record{Kind: "experiment", Arming: arm.Arming{Log: "/tmp/log"}}, "no other setting"},
		{"an arming's widened handlers", Record{Kind: "experiment", Arming: arm.Arming{Widen: []string{"h"}}}, "no other setting"},
		{"data that is not an object", Record{Kind: "experiment", QuestionData: json.RawMessage(`[1]`)}, "must be a JSON object"},
		{"data that names an engine's key", Record{Kind: "experiment", QuestionData: json.RawMessage(`{"site":"x"}`)}, `names "site"`},
		{"options that name an engine's key", Options{QuestionData: json.RawMessage(`{"timeout_ms":1}`)}, `names "timeout_ms"`},
		{"a header's data that names an engine's key", Header{QuestionData: json.RawMessage(`{"plan":"x"}`)}, `names "plan"`},
	}
	for _, tt := range tests {
		_, err := json.Marshal(tt.v)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one saying %q", tt.name, err, tt.want)
		}
	}
}

// TestQuestionDataSorted: a question's keys are written sorted, however
// the question wrote them, so that a plan read back hashes to its ID.
func TestQuestionDataSorted(t *testing.T) {
	b, err := json.Marshal(Options{TimeoutMs: 1, QuestionData: json.RawMessage(`{"z": 1, "a": [ 2 ]}`)})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"timeout_ms":1,"max_occurrences":0,"early_stop":false,"all_snapshots":false,"a":[2],"z":1}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	var o Options
	if err := json.Unmarshal(b, &o); err != nil || string(o.QuestionData) != `{"a":[2],"z":1}` {
		t.Errorf("read back: %s, %v", o.QuestionData, err)
	}
}

// TestMembers: the scan of a record's keys skips whole values, however
// they nest and whatever their strings hold.
func TestMembers(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`{}`, nil},
		{` { "a" : 1 , "b":true,"c":null}`, []string{`"a"=1`, `"b"=true`, `"c"=null`}},
		{`{"a":"x\"}{,","b":-1.5e3}`, []string{`"a"="x\"}{,"`, `"b"=-1.5e3`}},
		{`{"events":[{"event":"reach","stack":"1@a;2@b"},{"x":[1,[2,{}]]}],"k\"ey":{"a":"]"}}`,
			[]string{`"events"=[{"event":"reach","stack":"1@a;2@b"},{"x":[1,[2,{}]]}]`, `"k\"ey"={"a":"]"}`}},
		{"{\"a\":\"\\\\\",\n\"b\":[]}", []string{`"a"="\\"`, `"b"=[]`}},
	}
	for _, tt := range tests {
		var got []string
		members([]byte(tt.in), func(k, v []byte) { got = append(got, string(k)+"="+string(v)) })
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("members(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// A key written with escapes is the key it names.
	var o Options
	if err := json.Unmarshal([]byte(`{"timeout_ms":1,"\u0074ests":2,"max_occurrences":3}`), &o); err != nil || string(o.QuestionData) != `{"tests":2}` || o.MaxOccur != 3 {
		t.Errorf("options %+v, question's data %s, error %v", o, o.QuestionData, err)
	}
}
