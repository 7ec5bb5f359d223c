package policy

import "testing"

func TestFailsOnTypeCheckFailure(t *testing.T) {
	p := mustParse(t, `
[[rule]]
packages = ["example.com/mask"]
mode = "mask"
[[rule]]
packages = ["example.com/detect"]
mode = "detect"
[[rule]]
packages = ["example.com/maskwarn"]
mode = "mask"
on_type_check_failure = "warn"
[[rule]]
packages = ["example.com/detectfail"]
mode = "detect"
on_type_check_failure = "fail"
[[rule]]
packages = ["example.com/off"]
mode = "off"
`)
	tests := []struct {
		pkg  string
		want bool
	}{
		{"example.com/mask", true}, // a release build must not lose its masking unnoticed
		{"example.com/mask [example.com/mask.test]", true},
		{"example.com/detect", false},
		{"example.com/maskwarn", false},
		{"example.com/detectfail", true},
		{"example.com/off", false},
		{"example.com/none", false},
	}
	for _, tt := range tests {
		if got := p.ForPackage(tt.pkg, false).FailsOnTypeCheckFailure(); got != tt.want {
			t.Errorf("ForPackage(%q).FailsOnTypeCheckFailure() = %t, want %t", tt.pkg, got, tt.want)
		}
	}
}

// TestTypeCheckFailureHash checks that the setting is part of the hash
// (a package built as written under "warn" must not come from the build
// cache once the rule says "fail"). That a policy without it hashes as
// before the setting existed is TestHashEmpty's fixed value.
func TestTypeCheckFailureHash(t *testing.T) {
	const rule = "[[rule]]\npackages = [\"example.com/a\"]\nmode = \"mask\"\n"
	plain := mustParse(t, rule).Hash()
	warn := mustParse(t, rule+"on_type_check_failure = \"warn\"\n").Hash()
	fail := mustParse(t, rule+"on_type_check_failure = \"fail\"\n").Hash()
	if plain == warn || warn == fail {
		t.Errorf("hashes without, with warn, with fail: %s %s %s; want warn to differ from both", plain, warn, fail)
	}
}
