package funcname

import "testing"

func TestPrefix(t *testing.T) {
	for _, tt := range []struct{ path, prefix string }{
		{"example.com/m", "example.com/m"},
		{"main", "main"},
		{"gopkg.in/yaml.v3", "gopkg.in/yaml%2ev3"},
		{"gopkg.in/ini.v1", "gopkg.in/ini%2ev1"},
		{"example.com/x.v2/yaml.v3", "example.com/x.v2/yaml%2ev3"},
		{"a.b.c", "a%2eb%2ec"}, // no slash: the whole path is the last element
		{"example.com/m_test", "example.com/m_test"},
		{"x/a b", "x/a%20b"},
		{"x/a%b", "x/a%25b"},
		{"x/a\"b", "x/a%22b"},
		{"x/\tb", "x/%09b"},
		{"x/\x7f", "x/%7f"},
		{"x/é", "x/%c3%a9"},
		{"x.y/é.z", "x.y/%c3%a9%2ez"},
		{"x/a~b-c_d+e", "x/a~b-c_d+e"},
	} {
		if got := Prefix(tt.path); got != tt.prefix {
			t.Errorf("Prefix(%q) = %q, want %q", tt.path, got, tt.prefix)
		}
		if back, err := PathOf(tt.prefix); err != nil || back != tt.path {
			t.Errorf("PathOf(%q) = %q, %v, want %q", tt.prefix, back, err, tt.path)
		}
	}
}

func TestPathOfMalformed(t *testing.T) {
	for _, prefix := range []string{"x/a%2", "x/a%", "x/a%zz"} {
		if p, err := PathOf(prefix); err == nil {
			t.Errorf("PathOf(%q) = %q, want an error", prefix, p)
		}
	}
}

func TestSplit(t *testing.T) {
	for _, tt := range []struct {
		name, pkg, rel string
		ok             bool
	}{
		{"example.com/m/store.(*Store).Add", "example.com/m/store", "(*Store).Add", true},
		{"gopkg.in/ini%2ev1.(*File).Append", "gopkg.in/ini.v1", "(*File).Append", true},
		{"example.com/x.v2/yaml%2ev3.T.Value", "example.com/x.v2/yaml.v3", "T.Value", true},
		{"example.com/x%2ev2.Root", "example.com/x.v2", "Root", true},
		{"main.main", "main", "main", true},
		{"example.com/m.(*Stack[...]).Push", "example.com/m", "(*Stack[...]).Push", true},
		{"example.com/m.F.func1", "example.com/m", "F.func1", true},
		{"Transfer", "", "Transfer", false},
		{"x/a%zz.F", "", "x/a%zz.F", false},
	} {
		pkg, rel, ok := Split(tt.name)
		if pkg != tt.pkg || rel != tt.rel || ok != tt.ok {
			t.Errorf("Split(%q) = %q, %q, %t, want %q, %q, %t", tt.name, pkg, rel, ok, tt.pkg, tt.rel, tt.ok)
		}
		if ok && Join(pkg, rel) != tt.name {
			t.Errorf("Join(Split(%q)) = %q", tt.name, Join(pkg, rel))
		}
	}
}
