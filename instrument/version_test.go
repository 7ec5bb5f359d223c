package instrument

import "testing"

func TestLangAtLeast(t *testing.T) {
	tests := []struct {
		lang, v string
		want    bool
	}{
		{"", goClear, true}, // no -lang: the newest
		{"go1.20", goClear, false},
		{"go1.21", goClear, true},
		{"go1.21.0", goClear, true},
		{"go1.21rc2", goClear, true},
		{"go1.22", goClear, true},
		{"go1.9", goGenerics, false},
		{"go1.17", goGenerics, false},
		{"go1.18", goGenerics, true},
		{"go1.100", goClear, true},
		{"go2", goClear, true},
		{"bogus", goClear, true}, // the compiler would have refused it
	}
	for _, tt := range tests {
		p := &pkgRewriter{opts: Options{GoVersion: tt.lang}}
		if got := p.langAtLeast(tt.v); got != tt.want {
			t.Errorf("lang %q: langAtLeast(%q) = %v, want %v", tt.lang, tt.v, got, tt.want)
		}
	}
}
