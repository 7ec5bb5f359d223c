package sarifschema

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name, log string
		valid     bool
	}{
		{"minimal", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"atomicx"}},"results":[]}]}`, true},
		{"no runs", `{"version":"2.1.0"}`, false},
		{"wrong version", `{"version":"2.0.0","runs":[]}`, false},
		{"unknown property", `{"version":"2.1.0","runs":[],"extra":1}`, false},
		{"driver without name", `{"version":"2.1.0","runs":[{"tool":{"driver":{}}}]}`, false},
		{"bad informationUri", `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","informationUri":"not a uri"}}}]}`, false},
		{"not JSON", `{`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate([]byte(tc.log))
			if (err == nil) != tc.valid {
				t.Fatalf("Validate(%s) = %v, want valid=%v", tc.log, err, tc.valid)
			}
			if err != nil && !strings.Contains(err.Error(), "SARIF") && !strings.Contains(err.Error(), "JSON") {
				t.Errorf("error %q does not say what is wrong", err)
			}
		})
	}
}
