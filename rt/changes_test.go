package rt

import (
	"bufio"
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"
)

// codec is a decoder of the usual shape: a reusable buffer, an input
// stream behind an interface, an output the caller reads.
type codec struct {
	buf   []byte
	r     io.Reader
	w     *bufio.Writer
	log   strings.Builder
	dict  map[string]int
	state *codecState
	out   *[]string
}

type codecState struct {
	depth int
	tmp   []int
}

// box is generic: scratch names it without its type arguments.
type box[T any] struct {
	buf []T
	n   int
}

func newCodec() *codec {
	out := []string{}
	return &codec{
		r:     bytes.NewReader([]byte("abcdef")),
		w:     bufio.NewWriter(io.Discard),
		dict:  map[string]int{"a": 1},
		state: &codecState{},
		out:   &out,
	}
}

// TestChanges checks which kind of state each difference is said to be
// in, and that the walk goes on past stream and scratch differences to a
// caller-visible one.
func TestChanges(t *testing.T) {
	tests := []struct {
		name    string
		scratch string
		mutate  func(c *codec, b *box[int])
		want    changes
		path    string
	}{
		{name: "consumed input", mutate: func(c *codec, _ *box[int]) { c.r.Read(make([]byte, 2)) },
			want: streamPosition, path: "v.r.(*bytes.Reader).i"},
		{name: "partial output", mutate: func(c *codec, _ *box[int]) { c.w.WriteString("xy") },
			want: streamPosition, path: "v.w.buf[0:16]"},
		{name: "builder by value", mutate: func(c *codec, _ *box[int]) { c.log.WriteString("x") },
			want: streamPosition, path: "v.log.addr"},
		{name: "undeclared buffer is caller-visible", mutate: func(c *codec, _ *box[int]) { c.buf = append(c.buf, 1) },
			want: callerVisible, path: "v.buf"},
		{name: "declared buffer", scratch: "codec.buf", mutate: func(c *codec, _ *box[int]) { c.buf = append(c.buf, 1) },
			want: scratchState, path: "v.buf"},
		{name: "scratch behind a pointer", scratch: "codecState.tmp", mutate: func(c *codec, _ *box[int]) { c.state.tmp = []int{1} },
			want: scratchState, path: "v.state.tmp"},
		{name: "scratch field holding a pointer", scratch: "codec.state", mutate: func(c *codec, _ *box[int]) { c.state.depth = 3 },
			want: scratchState, path: "v.state.depth"},
		{name: "other fields of a scratch type stay visible", scratch: "codecState.tmp", mutate: func(c *codec, _ *box[int]) { c.state.depth = 3 },
			want: callerVisible, path: "v.state.depth"},
		{name: "stream is more visible than scratch", scratch: "codec.buf", mutate: func(c *codec, _ *box[int]) {
			c.buf = append(c.buf, 1)
			c.r.Read(make([]byte, 1))
		}, want: streamPosition, path: "v.r.(*bytes.Reader).i"},
		{name: "visible output after a stream", scratch: "codec.buf", mutate: func(c *codec, _ *box[int]) {
			c.buf = append(c.buf, 1)
			c.r.Read(make([]byte, 1))
			*c.out = append(*c.out, "half")
		}, want: callerVisible, path: "*v.out"},
		{name: "visible map entry after scratch", scratch: "codec.buf", mutate: func(c *codec, _ *box[int]) {
			c.buf = append(c.buf, 1)
			c.dict["b"] = 2
		}, want: callerVisible, path: `v.dict["b"]`},
		{name: "generic type", scratch: "box.buf", mutate: func(_ *codec, b *box[int]) { b.buf = append(b.buf, 1) },
			want: scratchState, path: "b.buf"},
		{name: "generic type, other field", scratch: "box.buf", mutate: func(_ *codec, b *box[int]) { b.n++ },
			want: callerVisible, path: "b.n"},
		{name: "field of another type with the same name", scratch: "codecState.buf", mutate: func(c *codec, _ *box[int]) { c.buf = []byte{1} },
			want: callerVisible, path: "v.buf"},
		{name: "nil slice made empty", mutate: func(c *codec, _ *box[int]) { c.buf = []byte{} },
			want: normalization, path: "v.buf"},
		{name: "empty map made nil", mutate: func(c *codec, _ *box[int]) { c.state.tmp = []int{}; c.dict = nil },
			want: callerVisible, path: "v.dict"},
		{name: "visible change after a normalization", mutate: func(c *codec, _ *box[int]) {
			c.buf = []byte{}
			c.state.depth = 1
		}, want: callerVisible, path: "v.state.depth"},
		{name: "nil slice made non-empty is visible", mutate: func(c *codec, _ *box[int]) { c.buf = []byte{0} },
			want: callerVisible, path: "v.buf"},
		{name: "scratch is more visible than a normalization", scratch: "codecState.tmp", mutate: func(c *codec, _ *box[int]) {
			c.buf = []byte{}
			c.state.tmp = []int{1}
		}, want: scratchState, path: "v.state.tmp"},
		{name: "a normalization inside scratch is scratch", scratch: "codec.buf", mutate: func(c *codec, _ *box[int]) { c.buf = []byte{} },
			want: scratchState, path: "v.buf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, b := newCodec(), &box[int]{}
			roots, names := []any{c, b}, []string{"v", "b"}
			s, ok := snapshotGraph(roots, 0, nil)
			if !ok {
				t.Fatal("snapshot over budget")
			}
			s.scratch = parseScratch(tt.scratch)
			tt.mutate(c, b)
			d, equal := s.compareGraph(roots, names)
			if equal {
				t.Fatal("no difference found")
			}
			if d.Changes != tt.want || d.Path != tt.path {
				t.Errorf("got %s at %s, want %s at %s", d.Changes, d.Path, tt.want, tt.path)
			}
		})
	}
}

func TestIsStreamType(t *testing.T) {
	type notStream struct{ i int }
	type readCloser interface {
		Read([]byte) (int, error)
		Close() error
	}
	type oddRead interface{ Read() error }
	tests := []struct {
		v    any
		want bool
	}{
		{bytes.Buffer{}, true}, {bytes.Reader{}, true}, {strings.Reader{}, true}, {strings.Builder{}, true},
		{bufio.Reader{}, true}, {bufio.Writer{}, true}, {bufio.Scanner{}, true},
		{notStream{}, false}, {strings.Replacer{}, false},
		{new(io.Reader), true}, {new(io.Writer), true}, {new(io.ByteReader), true}, {new(io.RuneScanner), true},
		{new(readCloser), true}, {new(io.Closer), false}, {new(oddRead), false}, {new(any), false},
	}
	for _, tt := range tests {
		typ := reflectTypeOf(tt.v)
		if got := isStreamType(typ); got != tt.want {
			t.Errorf("isStreamType(%v) = %t, want %t", typ, got, tt.want)
		}
	}
}

func TestParseScratch(t *testing.T) {
	tests := []struct {
		list string
		want map[string][]string
	}{
		{"", nil},
		{"Decoder.buf", map[string][]string{"Decoder": {"buf"}}},
		{"Decoder.buf,Decoder.tmp,Encoder.buf", map[string][]string{"Decoder": {"buf", "tmp"}, "Encoder": {"buf"}}},
		{"nodot,.x,T.", nil},
	}
	for _, tt := range tests {
		got := parseScratch(tt.list)
		if (got == nil) != (tt.want == nil) {
			t.Errorf("parseScratch(%q) = %v, want %v", tt.list, got, tt.want)
			continue
		}
		if got == nil {
			continue
		}
		if len(got.fields) != len(tt.want) {
			t.Errorf("parseScratch(%q) = %v, want %v", tt.list, got.fields, tt.want)
		}
		for k, v := range tt.want {
			if strings.Join(got.fields[k], ",") != strings.Join(v, ",") {
				t.Errorf("parseScratch(%q)[%s] = %v, want %v", tt.list, k, got.fields[k], v)
			}
		}
	}
}

// reflectTypeOf is the type of v, or of what v points to when v is a
// pointer to an interface.
func reflectTypeOf(v any) reflect.Type {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Interface {
		return t.Elem()
	}
	return t
}
