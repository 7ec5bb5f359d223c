package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/atomicx/atomicx/internal/sarifschema"
	"github.com/google/go-cmp/cmp"
)

func TestWriteLeaksSARIF(t *testing.T) {
	leaks := []Leak{{
		Pos:     "pkg/load.go:9:19",
		Message: "file from os.Open is not released (Close) on the path to the return at line 14; branches at lines 10 (false), 13 (true)",
		Key:     "pkg/load.go:os.Open:file",
		Path: []LeakStep{
			{Pos: "pkg/load.go:10:9", Message: "condition false"},
			{Pos: "pkg/load.go:13:30", Message: "condition true"},
			{Pos: "pkg/load.go:14:3", Message: "returns with the file open"},
		},
	}}
	var buf bytes.Buffer
	if err := WriteLeaksSARIF(&buf, leaks, SARIFOptions{Version: "v1.2.3", SemanticVersion: "1.2.3"}); err != nil {
		t.Fatal(err)
	}
	if err := sarifschema.Validate(buf.Bytes()); err != nil {
		t.Fatalf("not valid SARIF: %v\n%s", err, buf.Bytes())
	}
	var got struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				CodeFlows []struct {
					ThreadFlows []struct {
						Locations []struct {
							Location struct {
								PhysicalLocation struct {
									ArtifactLocation struct{ URI string }
									Region           struct{ StartLine, StartColumn int }
								}
								Message struct{ Text string }
							}
						}
					}
				}
				PartialFingerprints map[string]string
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	r := got.Runs[0].Results[0]
	var flow []string
	for _, l := range r.CodeFlows[0].ThreadFlows[0].Locations {
		p := l.Location.PhysicalLocation
		flow = append(flow, p.ArtifactLocation.URI+":"+itoa(p.Region.StartLine)+": "+l.Location.Message.Text)
	}
	want := []string{
		"pkg/load.go:9: acquired here",
		"pkg/load.go:10: condition false",
		"pkg/load.go:13: condition true",
		"pkg/load.go:14: returns with the file open",
	}
	if diff := cmp.Diff(want, flow); diff != "" {
		t.Errorf("code flow (-want +got):\n%s", diff)
	}
	if r.RuleID != "atomicx/errleak" || r.PartialFingerprints[LeakFingerprint] != "pkg/load.go:os.Open:file" {
		t.Errorf("rule %q, fingerprints %v", r.RuleID, r.PartialFingerprints)
	}
}

// TestWriteLeaksSARIFConfirmation: a confirmed finding carries its answer
// and the test that gave it as properties; one without -confirm has none.
func TestWriteLeaksSARIFConfirmation(t *testing.T) {
	leaks := []Leak{
		{Pos: "pkg/a.go:3:9", Message: "a", Key: "a", Confirmation: &LeakConfirmation{Answer: "confirmed", Package: "example.com/pkg",
			Test: "TestA", Injection: "error:1:example.com/pkg.A#call:os.ReadFile#1", Reproduce: "ATOMICX_INJECT='error:1:x' atomicx go test"}},
		{Pos: "pkg/b.go:3:9", Message: "b", Key: "b", Confirmation: &LeakConfirmation{Answer: "not reached by the tests"}},
		{Pos: "pkg/c.go:3:9", Message: "c", Key: "c"},
	}
	var buf bytes.Buffer
	if err := WriteLeaksSARIF(&buf, leaks, SARIFOptions{Version: "v1.2.3", SemanticVersion: "1.2.3"}); err != nil {
		t.Fatal(err)
	}
	if err := sarifschema.Validate(buf.Bytes()); err != nil {
		t.Fatalf("not valid SARIF: %v\n%s", err, buf.Bytes())
	}
	var got struct {
		Runs []struct {
			Results []struct {
				Properties map[string]string
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var props []map[string]string
	for _, r := range got.Runs[0].Results {
		props = append(props, r.Properties)
	}
	want := []map[string]string{
		{"atomicxConfirmation": "confirmed", "atomicxConfirmedBy": "example.com/pkg TestA", "atomicxReproduce": "ATOMICX_INJECT='error:1:x' atomicx go test"},
		{"atomicxConfirmation": "not reached by the tests"},
		nil,
	}
	if diff := cmp.Diff(want, props); diff != "" {
		t.Errorf("properties (-want +got):\n%s", diff)
	}
}
