package rt

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fnode is the node of the graphs FuzzFirstDiff builds: one field of most
// kinds, and references to other nodes that make lists, cycles and
// sharing.
type fnode struct {
	id    int
	label string
	f     float64
	next  *fnode
	kids  []*fnode
	tags  map[string]int
	any   any
	arr   [2]int8
	fn    func() int
	mu    sync.Mutex
	hits  atomic.Int64
}

// froot reaches every node through all, so that a change to any node is a
// change of the graph.
type froot struct {
	all   []*fnode
	index map[*fnode]int
}

// fuzzBytes hands out the fuzz input one byte at a time, then zeros.
type fuzzBytes []byte

func (b *fuzzBytes) next() int {
	if len(*b) == 0 {
		return 0
	}
	v := (*b)[0]
	*b = (*b)[1:]
	return int(v)
}

var fuzzFloats = []float64{0, math.Copysign(0, -1), math.NaN(), 1.5}

// buildFuzzGraph builds a graph of 1 to 12 nodes from the input.
func buildFuzzGraph(in *fuzzBytes) *froot {
	n := 1 + in.next()%12
	nodes := make([]*fnode, n)
	for i := range nodes {
		nodes[i] = &fnode{
			id:    in.next(),
			label: strings.Repeat("x", in.next()%3),
			f:     fuzzFloats[in.next()%len(fuzzFloats)],
			arr:   [2]int8{int8(in.next()), int8(in.next())},
		}
	}
	pick := func() *fnode { // a node or, one time in n+1, nil
		k := in.next() % (n + 1)
		if k == n {
			return nil
		}
		return nodes[k]
	}
	for _, nd := range nodes {
		nd.next = pick()
		for range in.next() % 3 {
			nd.kids = append(nd.kids, pick())
		}
		if in.next()%2 == 1 {
			nd.tags = map[string]int{}
			for range in.next() % 3 {
				nd.tags[string(rune('a'+in.next()%3))] = in.next()
			}
		}
		switch in.next() % 5 {
		case 1:
			nd.any = in.next()
		case 2:
			nd.any = nd.label
		case 3:
			nd.any = pick()
		case 4:
			nd.any = []int{in.next()}
		}
		switch in.next() % 3 {
		case 1:
			nd.fn = gfuncA
		case 2:
			nd.fn = gfuncB
		}
	}
	r := &froot{all: nodes, index: map[*fnode]int{}}
	for i, nd := range nodes {
		r.index[nd] = i
	}
	return r
}

// mutateFuzzGraph applies one mutation chosen by the input and reports
// whether it changed the graph by value.
func mutateFuzzGraph(r *froot, in *fuzzBytes) (changed bool) {
	nd := r.all[in.next()%len(r.all)]
	v := in.next()
	switch in.next() % 14 {
	case 0:
		changed = nd.id != v
		nd.id = v
	case 1:
		label := strings.Repeat("x", v%3)
		changed = nd.label != label
		nd.label = label
	case 2:
		f := fuzzFloats[v%len(fuzzFloats)]
		changed = !(nd.f == f || math.Float64bits(nd.f) == math.Float64bits(f))
		nd.f = f
	case 3:
		changed = nd.next != nil
		nd.next = nil
	case 4:
		nd.kids = append(nd.kids, nil)
		changed = true
	case 5:
		nd.kids = slices.Clone(nd.kids) // new backing array, same elements
	case 6:
		k := string(rune('a' + v%3))
		old, ok := nd.tags[k]
		if nd.tags == nil {
			nd.tags = map[string]int{}
		}
		changed = !ok || old != v
		nd.tags[k] = v
	case 7:
		k := string(rune('a' + v%3))
		_, changed = nd.tags[k]
		delete(nd.tags, k)
	case 8:
		nd.mu.Lock()
		nd.mu.Unlock()
	case 9:
		nd.hits.Add(1)
		changed = true
	case 10:
		old, isInt := nd.any.(int)
		changed = !isInt || old != v
		nd.any = v
	case 11:
		i := v % 2
		changed = nd.arr[i] != int8(v>>1)
		nd.arr[i] = int8(v >> 1)
	case 12:
		fn := gfuncA
		if v%2 == 1 {
			fn = gfuncB
		}
		changed = reflect.ValueOf(nd.fn).Pointer() != reflect.ValueOf(fn).Pointer()
		nd.fn = fn
	case 13:
		// Swap the node for an equal copy in the root's slice: the same
		// references, so equal by value.
		cp := &fnode{id: nd.id, label: nd.label, f: nd.f, next: nd.next, kids: nd.kids,
			tags: nd.tags, any: nd.any, arr: nd.arr, fn: nd.fn}
		r.all[r.index[nd]] = cp
	}
	return changed
}

// FuzzFirstDiff builds a graph from the input, checks that it compares
// equal to its snapshot, applies one mutation and checks that a difference
// is found exactly when the mutation changed something. Panics fail the
// test: the unguarded functions are called.
func FuzzFirstDiff(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 1, 2, 0, 1, 2, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{11, 200, 1, 3, 4, 4, 4, 4, 4, 4, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 0, 13})
	f.Add([]byte("a graph of nodes with cycles, maps and interfaces"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzBytes(data)
		budget := 0
		if b := in.next(); b < 32 {
			budget = 1 + b*4 // small budgets, to cross the limit at every place
		}
		r := buildFuzzGraph(&in)
		roots := []any{r}
		names := []string{"v"}
		s, ok := snapshotGraph(roots, budget, nil)
		if !ok {
			if budget == 0 {
				t.Fatal("small graph over the default budget")
			}
			return
		}
		if d, equal := s.compareGraph(roots, names); !equal {
			t.Fatalf("unchanged graph differs: %+v", d)
		}
		changed := mutateFuzzGraph(r, &in)
		d, equal := s.compareGraph(roots, names)
		if equal == changed {
			t.Fatalf("changed = %v, but equal = %v (%+v)", changed, equal, d)
		}
		if !equal {
			if !strings.HasPrefix(d.Path, "v") || d.Before == d.After && d.Before != "func" {
				t.Fatalf("malformed difference %+v", d)
			}
			if d2, _ := s.compareGraph(roots, names); d2 != d {
				t.Fatalf("not deterministic: %+v then %+v", d, d2)
			}
		}
	})
}
