package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/question/handlers"
)

const widenSrc = `package m

func Load(name string) (string, error) {
	b, err := read(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	return string(b), nil
}

func Parse(s string) int {
	n, err := strconv.Atoi(s)
	switch {
	case err == strconv.ErrRange:
		return -1
	}
	return n
}
`

func TestWriteWidenDiff(t *testing.T) {
	kept := &HandlerWidening{Status: handlers.WidenKept, Widened: "err != nil"}
	findings := []*HandlerFinding{
		{ID: "m.Load#handler:m.go:5:2", Pos: "example.com/m/m.go:5:2", Predicate: "errors.Is(err, fs.ErrNotExist)", Widening: kept},
		{ID: "m.Load#handler:m.go:7:9", Pos: "example.com/m/m.go:7:9", Predicate: "err != nil"},
		{ID: "m.Parse#handler:m.go:16:2", Pos: "example.com/m/m.go:16:2", Predicate: "err == strconv.ErrRange", Widening: kept},
		{ID: "m.Kind#handler:m.go:12:2", Pos: "example.com/m/m.go:12:2", Predicate: "case *fs.PathError", Widening: kept},
		{ID: "m.Tagged#handler:m.go:13:2", Pos: "example.com/m/m.go:13:2", Predicate: "case io.EOF", Widening: kept},
		{ID: "m.Parse#handler:m.go:99:2", Pos: "example.com/m/m.go:17:2", Predicate: "errors.Is(err, io.EOF)",
			Widening: &HandlerWidening{Status: handlers.WidenRejected, Widened: "err != nil"}},
	}
	read := func(pos string) (*SourceFile, error) {
		if !strings.HasPrefix(pos, "example.com/m/m.go:") {
			return nil, errors.New("not found")
		}
		return &SourceFile{Name: "m.go", Src: []byte(widenSrc)}, nil
	}
	tests := []struct {
		name     string
		together *WideningTogether
		want     string
		n        int
		skipped  string
	}{
		{"kept together: both arms rewritten, one hunk each", &WideningTogether{Status: handlers.WidenKept}, `--- a/m.go
+++ b/m.go
@@ -2,7 +2,7 @@
 
 func Load(name string) (string, error) {
 	b, err := read(name)
-	if errors.Is(err, fs.ErrNotExist) {
+	if err != nil {
 		return "", nil
 	} else if err != nil {
 		return "", err
@@ -13,7 +13,7 @@
 func Parse(s string) int {
 	n, err := strconv.Atoi(s)
 	switch {
-	case err == strconv.ErrRange:
+	case err != nil:
 		return -1
 	}
 	return n
`, 2, "m.Kind#handler:m.go:12:2: a case of a switch on the error or on its type is not rewritten in the diff: widened, it takes every error that no case before it takes; " +
			"m.Tagged#handler:m.go:13:2: a case of a switch on the error or on its type is not rewritten in the diff"},
		{"rejected together: no diff", &WideningTogether{Status: handlers.WidenRejected, Why: "m TestA fails"}, "", 0, "rejected: m TestA fails"},
		{"nothing kept", nil, "", 0, "no widening was kept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &HandlersReport{Handlers: findings, Together: tt.together}
			var b bytes.Buffer
			n, skipped, err := WriteWidenDiff(&b, r, read)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want || n != tt.n {
				t.Errorf("%d arms rewritten, diff:\n%s\nwant %d:\n%s", n, b.String(), tt.n, tt.want)
			}
			if got := strings.Join(skipped, "; "); !strings.Contains(got, tt.skipped) || (tt.skipped == "") != (got == "") {
				t.Errorf("skipped %q, want %q", got, tt.skipped)
			}
		})
	}
}

func TestWriteWidenDiffSourceChanged(t *testing.T) {
	r := &HandlersReport{Together: &WideningTogether{Status: handlers.WidenKept}, Handlers: []*HandlerFinding{
		{ID: "m.Load#handler:m.go:4:2", Pos: "example.com/m/m.go:4:2", Predicate: "errors.Is(err, fs.ErrNotExist)",
			Widening: &HandlerWidening{Status: handlers.WidenKept, Widened: "err != nil"}},
	}}
	var b bytes.Buffer
	n, skipped, err := WriteWidenDiff(&b, r, func(string) (*SourceFile, error) { return &SourceFile{Name: "m.go", Src: []byte(widenSrc)}, nil })
	if err != nil || n != 0 || b.Len() != 0 || len(skipped) != 1 || !strings.Contains(skipped[0], "is not at example.com/m/m.go:4:2 any more") {
		t.Errorf("n %d, skipped %q, diff %q, err %v", n, skipped, b.String(), err)
	}
}

func TestWriteWidenDiffRouting(t *testing.T) {
	const src = `package m

import "fmt"

func Load(name string) string {
	b, err := load(name)
	if err != nil {
		return ""
	}
	return fmt.Sprint(b)
}
`
	h := &HandlerFinding{ID: "m.Load#handler:m.go:7:2", Pos: "example.com/m/m.go:7:2", Region: "example.com/m/m.go:6:16", Predicate: "err != nil",
		Routing: &HandlerRouting{Status: handlers.WidenKept, Call: "load(name)", Results: "_ []byte, err error"}}
	read := func(pos string) (*SourceFile, error) {
		return &SourceFile{Name: "m.go", Src: []byte(src)}, nil
	}
	r := &HandlersReport{Handlers: []*HandlerFinding{h}, RoutedTogether: &WideningTogether{Status: handlers.WidenKept}}
	var b bytes.Buffer
	n, skipped, err := WriteWidenDiff(&b, r, read)
	if err != nil || n != 1 || len(skipped) != 1 || skipped[0] != "no widening was kept" {
		t.Fatalf("n %d, skipped %q, %v", n, skipped, err)
	}
	want := `--- a/m.go
+++ b/m.go
@@ -3,7 +3,14 @@
 import "fmt"
 
 func Load(name string) string {
-	b, err := load(name)
+	b, err := func() (_ []byte, err error) {
+		defer func() {
+			if r := recover(); r != nil {
+				err = fmt.Errorf("load(name): panic: %v", r)
+			}
+		}()
+		return load(name)
+	}()
 	if err != nil {
 		return ""
 	}
`
	if b.String() != want {
		t.Errorf("diff:\n%s\nwant:\n%s", b.String(), want)
	}

	// Not together: nothing written, and why.
	r.RoutedTogether.Status, r.RoutedTogether.Why = handlers.WidenRejected, "m TestA fails with them all routed"
	b.Reset()
	if n, skipped, _ := WriteWidenDiff(&b, r, read); n != 0 || b.Len() != 0 || len(skipped) != 2 || !strings.Contains(skipped[1], "routings together are rejected") {
		t.Errorf("n %d, skipped %q, diff %q", n, skipped, b.String())
	}
	// A file without fmt is left out.
	r.RoutedTogether.Status = handlers.WidenKept
	read = func(pos string) (*SourceFile, error) {
		return &SourceFile{Name: "m.go", Src: []byte(strings.Replace(src, `import "fmt"`, `import "os"`, 1))}, nil
	}
	if n, skipped, _ := WriteWidenDiff(&b, r, read); n != 0 || len(skipped) != 2 || !strings.Contains(skipped[1], "does not import fmt") {
		t.Errorf("n %d, skipped %q", n, skipped)
	}
}
