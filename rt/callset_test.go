package rt

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCallSet(t *testing.T) {
	tests := []struct {
		name  string
		nums  []uint64
		limit int
		want  callSet
		text  string
	}{
		{name: "one", nums: []uint64{4}, want: callSet{{4, 4}}, text: "4@S"},
		{name: "a recursion", nums: []uint64{7, 3, 4, 6, 5}, want: callSet{{3, 7}}, text: "3-7@S"},
		{name: "gaps", nums: []uint64{10, 1, 2, 5, 2}, want: callSet{{1, 2}, {5, 5}, {10, 10}}, text: "1-2,5,10@S"},
		{
			name: "merged down to the limit, closest first", nums: []uint64{1, 3, 20, 40, 41, 100}, limit: 3,
			want: callSet{{1, 20}, {40, 41}, {100, 100}}, text: "1-20,40-41,100@S",
		},
		{name: "limit of one", nums: []uint64{9, 1, 5}, limit: 1, want: callSet{{1, 9}}, text: "1-9@S"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := newCallSet(tt.nums, tt.limit)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(callSpan{})); diff != "" {
				t.Fatalf("newCallSet(%v, %d) (-want +got):\n%s", tt.nums, tt.limit, diff)
			}
			text := string(appendCalls(nil, got, "S"))
			if text != tt.text {
				t.Errorf("appendCalls = %q, want %q", text, tt.text)
			}
			back, problem := parseTargets(text)
			if problem != "" {
				t.Fatalf("parseTargets(%q): %s", text, problem)
			}
			if diff := cmp.Diff(got, back["S"], cmp.AllowUnexported(callSpan{})); diff != "" {
				t.Errorf("parseTargets(appendCalls(set)) (-set +parsed):\n%s", diff)
			}
			for _, n := range tt.nums {
				if !got.has(n) {
					t.Errorf("has(%d) = false, want true: every number given is in the set", n)
				}
			}
		})
	}
}

func TestCallSetHas(t *testing.T) {
	s := callSet{{2, 4}, {8, 8}, {10, 20}}
	for n := uint64(0); n <= 22; n++ {
		want := n >= 2 && n <= 4 || n == 8 || n >= 10 && n <= 20
		if got := s.has(n); got != want {
			t.Errorf("has(%d) = %v, want %v", n, got, want)
		}
	}
	if (callSet)(nil).has(1) {
		t.Error("an empty set has 1")
	}
}
