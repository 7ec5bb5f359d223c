package errleak

import "testing"

func TestParseRelease(t *testing.T) {
	tests := []struct {
		in   string
		want release
	}{
		{"()", release{call: true}},
		{"Close", release{method: "Close"}},
		{"Body.Close", release{field: "Body", method: "Close"}},
		{"os/signal.Stop", release{fn: "os/signal.Stop"}},
		{"pool.Put", release{fn: "pool.Put"}},
		{"example.com/pool.Put", release{fn: "example.com/pool.Put"}},
	}
	for _, tt := range tests {
		if got := parseRelease(tt.in); got != tt.want {
			t.Errorf("parseRelease(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestSuppresses(t *testing.T) {
	tests := []struct {
		comment string
		want    bool
	}{
		{"//nolint:errleak", true},
		{"// nolint:errleak // closed by the pool", true},
		{"//nolint:bodyclose,errleak", true},
		{"//nolint", true},
		{"//nolint:all", true},
		{"//nolint:bodyclose", false},
		{"//atomicx:ignore", true},
		{"//atomicx:ignore closed elsewhere", true},
		{"// nothing to see", false},
		{"//nolintxyz", false},
	}
	for _, tt := range tests {
		if got := suppresses(tt.comment); got != tt.want {
			t.Errorf("suppresses(%q) = %v, want %v", tt.comment, got, tt.want)
		}
	}
}

func TestShortName(t *testing.T) {
	tests := map[string]string{
		"os.Open":                        "os.Open",
		"net/http.Get":                   "http.Get",
		"(*net/http.Client).Do":          "(*http.Client).Do",
		"(net.Listener).Accept":          "(net.Listener).Accept",
		"(*example.com/m/pool.Pool).Get": "(*pool.Pool).Get",
	}
	for in, want := range tests {
		if got := shortName(in); got != want {
			t.Errorf("shortName(%q) = %q, want %q", in, got, want)
		}
	}
}
