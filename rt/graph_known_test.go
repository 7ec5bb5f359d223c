package rt

import (
	"encoding/json"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestKnownValues checks that differences in values of well-known types
// are reported at the value, rendered as a Go programmer reads it.
func TestKnownValues(t *testing.T) {
	t0 := time.Date(2024, 1, 2, 15, 4, 5, 0, time.UTC)
	type obj struct {
		T    time.Time
		PT   *time.Time
		D    time.Duration
		N    big.Int
		PN   *big.Int
		F    *big.Float
		R    *big.Rat
		B    []byte
		Raw  json.RawMessage
		Any  any
		Keep string
	}
	fresh := func() *obj {
		pt := t0
		return &obj{T: t0, PT: &pt, D: 5 * time.Second, PN: big.NewInt(-42), F: big.NewFloat(1.5), R: big.NewRat(3, 4),
			B: []byte("abc"), Raw: json.RawMessage(`{"a":1}`), Any: t0}
	}
	huge, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	long := strings.Repeat("x", 100)
	for _, tc := range []struct {
		name           string
		before         func(o *obj) // a change before the snapshot
		change         func(o *obj)
		path, was, now string
	}{
		{name: "time", change: func(o *obj) { o.T = time.Time{} },
			path: "v.T", was: "2024-01-02T15:04:05Z", now: "0001-01-01T00:00:00Z"},
		{name: "time through a pointer", change: func(o *obj) { *o.PT = o.PT.Add(time.Second) },
			path: "*v.PT", was: "2024-01-02T15:04:05Z", now: "2024-01-02T15:04:06Z"},
		{name: "time's location", change: func(o *obj) { o.T = o.T.In(time.FixedZone("X", 3600)) },
			path: "v.T", was: "2024-01-02T15:04:05Z", now: "2024-01-02T16:04:05+01:00"},
		{name: "duration", change: func(o *obj) { o.D = 1500 * time.Millisecond },
			path: "v.D", was: "5s", now: "1.5s"},
		{name: "big.Int zero to huge", change: func(o *obj) { o.N.Set(huge) },
			path: "v.N", was: "0", now: "123456789012345678901234567890"},
		{name: "big.Int digits in place", before: func(o *obj) { o.N.Set(huge) }, change: func(o *obj) { o.N.Add(&o.N, big.NewInt(1)) },
			path: "v.N", was: "123456789012345678901234567890", now: "123456789012345678901234567891"},
		{name: "big.Int negative", change: func(o *obj) { o.PN.Neg(o.PN) },
			path: "*v.PN", was: "-42", now: "42"},
		{name: "big.Float", change: func(o *obj) { o.F.SetFloat64(-0.25) },
			path: "*v.F", was: "1.5", now: "-0.25"},
		{name: "big.Rat", change: func(o *obj) { o.R.SetInt64(2) },
			path: "*v.R", was: "3/4", now: "2/1"},
		{name: "bytes", change: func(o *obj) { o.B[1] = 'X' },
			path: "v.B", was: `[]byte("abc")`, now: `[]byte("aXc")`},
		{name: "bytes that are not text", change: func(o *obj) { o.B = []byte{0, 1, 0xff} },
			path: "v.B", was: `[]byte("abc")`, now: `[]byte{0x0, 0x1, 0xff}`},
		{name: "long bytes that are not text keep their length", change: func(o *obj) { o.B = make([]byte, 100) },
			path: "v.B", was: `[]byte("abc")`, now: `[]byte{0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, …} (len=100)`},
		{name: "long bytes: the window that differs", before: func(o *obj) { o.B = []byte(long) }, change: func(o *obj) { o.B[70] = 'y' },
			path: "v.B[70:86]", was: `[]byte("xxxxxxxxxxxxxxxx")`, now: `[]byte("yxxxxxxxxxxxxxxx")`},
		{name: "named byte slice", change: func(o *obj) { o.Raw = json.RawMessage(`{}`) },
			path: "v.Raw", was: `json.RawMessage("{\"a\":1}")`, now: `json.RawMessage("{}")`},
		{name: "same instant, another monotonic reading", before: func(o *obj) { o.T = time.Now() }, change: func(o *obj) { o.T = o.T.Round(0).Add(0) },
			path: "v.T", was: "", now: ""},
		{name: "time in an interface", change: func(o *obj) { o.Any = t0.Add(time.Hour) },
			path: "v.Any.(time.Time)", was: "2024-01-02T15:04:05Z", now: "2024-01-02T16:04:05Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := fresh()
			if tc.before != nil {
				tc.before(o)
			}
			roots := []any{o}
			s, ok := takeSnapshot(roots, 0)
			if !ok {
				t.Fatal("snapshot over budget")
			}
			if _, equal := s.firstDiff(roots, []string{"v"}); !equal {
				t.Fatal("unchanged object differs")
			}
			tc.change(o)
			d, equal := s.firstDiff(roots, []string{"v"})
			if equal {
				t.Fatal("the change was not seen")
			}
			if tc.was == "" { // Time.String: the monotonic reading is gone
				if d.Path != tc.path || !strings.Contains(d.Before, " m=") || strings.Contains(d.After, " m=") {
					t.Errorf("%s: %s → %s, want Time.String with and without m=", d.Path, d.Before, d.After)
				}
				return
			}
			if d.Path != tc.path || d.Before != tc.was || d.After != tc.now {
				t.Errorf("%s: %s → %s\nwant %s: %s → %s", d.Path, d.Before, d.After, tc.path, tc.was, tc.now)
			}
		})
	}
}

// TestKnownValuesEqual checks that well-known values equal by value
// compare equal, whatever their representation.
func TestKnownValuesEqual(t *testing.T) {
	type obj struct {
		N big.Int
		T time.Time
	}
	o := &obj{T: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)}
	o.N.SetInt64(5)
	roots := []any{o}
	s, _ := takeSnapshot(roots, 0)
	o.N.SetInt64(7)
	o.N.SetInt64(5) // the same number, maybe in other words
	o.T = o.T.Add(time.Hour).Add(-time.Hour)
	if d, equal := s.firstDiff(roots, []string{"v"}); !equal {
		t.Errorf("equal values differ: %+v", d)
	}
}

// TestTimeLayout checks that time.Time still has the layout timeEqual
// reads.
func TestTimeLayout(t *testing.T) {
	tt := reflect.TypeFor[time.Time]()
	ft := reflect.TypeFor[timeFields]()
	if tt.Size() != ft.Size() || tt.NumField() != ft.NumField() {
		t.Fatalf("time.Time has %d fields in %d bytes", tt.NumField(), tt.Size())
	}
	for i := range tt.NumField() {
		a, b := tt.Field(i), ft.Field(i)
		if a.Name != b.Name || a.Offset != b.Offset || a.Type.Size() != b.Type.Size() {
			t.Errorf("time.Time field %d is %s at %d, want %s at %d", i, a.Name, a.Offset, b.Name, b.Offset)
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[big.Int](), reflect.TypeFor[big.Float](), reflect.TypeFor[big.Rat]()} {
		if knownKindOf(typ) == knownNone {
			t.Errorf("%s no longer has the layout the runtime reads", typ)
		}
	}
}

func TestDecimal(t *testing.T) {
	for _, s := range []string{"0", "1", "999999999", "1000000000", "18446744073709551615", "18446744073709551616", "340282366920938463463374607431768211455"} {
		n, _ := new(big.Int).SetString(s, 10)
		var words []uint
		for _, w := range n.Bits() {
			words = append(words, uint(w))
		}
		if got := decimal(words); got != s {
			t.Errorf("decimal(%v) = %s, want %s", words, got, s)
		}
	}
}
