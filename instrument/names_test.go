package instrument

import (
	"slices"
	"strings"
	"testing"
)

// TestSiteNames checks the names the site table gives: the runtime's, with
// the dots of the package path's last element escaped, and methods
// declared on aliases named after the aliased type, the same way for the
// policy's selection, for the site of the function and for call sites.
func TestSiteNames(t *testing.T) {
	src := `package conf

import "errors"

type T struct{ n int }

type A = T

func (a *A) Set(n int) error {
	a.n = n
	return errors.New("failed")
}

func (t *T) Reset() error { return t.Set(0) }

func (t T) Get() (int, error) { return t.n, nil }

func Load(v *A) error { _, err := v.Get(); return err }
`
	for _, tt := range []struct {
		name     string
		selected []string // nil selects every function
		want     []string // site lines of the generated table, in part (tabs as the table's string constant spells them)
		notWant  []string
	}{
		{
			name: "all selected",
			want: []string{
				`\tgopkg.in/conf%2ev1.(*T).Set#entry\tgopkg.in/conf%2ev1.(*T).Set\tgopkg.in/conf.v1/conf.go:9:13\t`,
				`\tgopkg.in/conf%2ev1.(*T).Reset#entry\tgopkg.in/conf%2ev1.(*T).Reset\t`,
				`\tgopkg.in/conf%2ev1.Load#entry\t`,
			},
			// Set and Get are instrumented: their calls are no call sites.
			notWant: []string{"#call:"},
		},
		{
			name:     "callees not selected",
			selected: []string{"(*T).Reset", "Load"},
			want: []string{
				`\tgopkg.in/conf%2ev1.(*T).Reset#call:(*conf.T).Set#1\tgopkg.in/conf%2ev1.(*T).Reset\t`,
				`\tgopkg.in/conf%2ev1.Load#call:(conf.T).Get#1\tgopkg.in/conf%2ev1.Load\t`,
			},
			notWant: []string{"(*T).Set#entry", "conf.A"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions()
			opts.ImportPath = "gopkg.in/conf.v1"
			var asked []string
			opts.Selects = func(name string) bool {
				asked = append(asked, name)
				return tt.selected == nil || slices.Contains(tt.selected, name)
			}
			res, err := Package([]File{{Name: "/src/gopkg.in/conf.v1/conf.go", Src: []byte(src)}}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"(*T).Set", "(*T).Reset", "T.Get", "Load"}; !slices.Equal(res.Declared, want) {
				t.Errorf("Declared = %q, want %q", res.Declared, want)
			}
			for _, name := range asked {
				if strings.Contains(name, "A") || strings.Contains(name, "?") {
					t.Errorf("the policy was asked about %q, not the runtime's name", name)
				}
			}
			gen := string(res.Generated.Src)
			for _, w := range tt.want {
				if !strings.Contains(gen, w) {
					t.Errorf("the site table has no %s:\n%s", w, gen)
				}
			}
			for _, nw := range tt.notWant {
				if strings.Contains(gen, nw) {
					t.Errorf("the site table has %s:\n%s", nw, gen)
				}
			}
		})
	}
}
