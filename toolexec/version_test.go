package toolexec

import (
	"strings"
	"testing"
)

// goToolID is what the go command (cmd/go/internal/work.(*Builder).toolID)
// makes of a tool's -V=full line: the key it hashes into the build cache.
// It returns ok false where the go command would stop the build.
func goToolID(name, line string) (id string, ok bool) {
	f := strings.Fields(line)
	if len(f) < 3 || f[0] != name || f[1] != "version" || strings.Contains(f[2], "devel") && !strings.HasPrefix(f[len(f)-1], "buildID=") {
		return "", false
	}
	if strings.Contains(f[2], "devel") {
		last := f[len(f)-1]
		return last[strings.LastIndex(last, "/")+1:], true
	}
	return strings.TrimSpace(line), true
}

func TestVersionLine(t *testing.T) {
	const id1, id2 = "v0.1.0+sha256:0123456789ab+policy:00112233aabbccdd", "v0.1.0+sha256:0123456789ab+policy:ffeeddccbbaa9988"
	tests := []struct {
		name    string
		tool    string
		line    string
		want    string // expected line for id1; "" to check only the properties
		wantErr bool
	}{
		{
			name: "release",
			tool: "compile",
			line: "compile version go1.26.8\n",
			want: "compile version go1.26.8 atomicx:" + id1 + "\n",
		},
		{
			name: "release with experiments",
			tool: "compile",
			line: "compile version go1.26.8 X:framepointer\n",
			want: "compile version go1.26.8 X:framepointer atomicx:" + id1 + "\n",
		},
		{
			name: "release without newline, CRLF",
			tool: "link",
			line: "link version go1.26.8\r\n",
			want: "link version go1.26.8 atomicx:" + id1 + "\n",
		},
		{
			name: "devel with build ID",
			tool: "compile",
			line: "compile version devel go1.27-4a3b2c1d Tue Jan 6 10:00:00 2026 +0000 buildID=Xk2jP9zQmN0aBcDeFgHi/Xk2jP9zQmN0aBcDeFgHi\n",
		},
		{
			name: "devel version string in one field",
			tool: "compile",
			line: "compile version go1.27-devel_4a3b2c1d Tue Jan 6 10:00:00 2026 +0000 X:nocoverageredesign buildID=abc/def\n",
		},
		{
			name: "devel build ID without slash",
			tool: "asm",
			line: "asm version devel +4a3b2c1d buildID=onlycontent\n",
		},
		{
			name:    "devel without build ID",
			tool:    "compile",
			line:    "compile version devel go1.27-4a3b2c1d Tue Jan 6 10:00:00 2026 +0000\n",
			wantErr: true,
		},
		{name: "garbage", tool: "compile", line: "flag provided but not defined: -V\n", wantErr: true},
		{name: "empty", tool: "compile", line: "", wantErr: true},
		{name: "no version word", tool: "compile", line: "compile go1.26.8 something\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got1, err := VersionLine(tt.line, id1)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("VersionLine(%q) = %q, want an error", tt.line, got1)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != "" && got1 != tt.want {
				t.Errorf("VersionLine(%q):\n got %q\nwant %q", tt.line, got1, tt.want)
			}
			if !strings.HasSuffix(got1, "\n") || strings.Count(got1, "\n") != 1 {
				t.Errorf("VersionLine(%q) = %q, want exactly one line", tt.line, got1)
			}
			if !strings.Contains(got1, "atomicx:"+id1) {
				t.Errorf("VersionLine(%q) = %q does not show the identity", tt.line, got1)
			}
			again, err := VersionLine(tt.line, id1)
			if err != nil || again != got1 {
				t.Errorf("same identity, different lines: %q and %q (%v)", got1, again, err)
			}
			got2, err := VersionLine(tt.line, id2)
			if err != nil {
				t.Fatal(err)
			}
			if got1 == got2 {
				t.Errorf("two identities give the same line %q", got1)
			}

			// What matters is the key the go command derives.
			orig, ok := goToolID(tt.tool, tt.line)
			if !ok {
				t.Fatalf("the test's tool line %q is not one the go command accepts", tt.line)
			}
			k1, ok1 := goToolID(tt.tool, got1)
			k2, ok2 := goToolID(tt.tool, got2)
			if !ok1 || !ok2 {
				t.Fatalf("the go command would reject %q or %q", got1, got2)
			}
			if k1 == k2 {
				t.Errorf("the go command derives the same cache key %q from both identities", k1)
			}
			if k1 == orig || k2 == orig {
				t.Errorf("the go command derives the real tool's key %q from an atomicx line", orig)
			}
			if again, _ := goToolID(tt.tool, again); again != k1 {
				t.Errorf("cache key not stable: %q, %q", k1, again)
			}
		})
	}
}
