package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/internal/sarifschema"
)

// sarifCheck is what GitHub code scanning requires of an upload.
type sarifCheck struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name            string `json:"name"`
				FullName        string `json:"fullName"`
				Version         string `json:"version"`
				SemanticVersion string `json:"semanticVersion"`
				InformationURI  string `json:"informationUri"`
				Rules           []struct {
					ID                   string `json:"id"`
					HelpURI              string `json:"helpUri"`
					ShortDescription     struct{ Text string }
					FullDescription      struct{ Text string }
					Help                 struct{ Text string }
					DefaultConfiguration struct{ Level string }
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		AutomationDetails struct {
			ID string `json:"id"`
		} `json:"automationDetails"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct{ Text string }
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine   int `json:"startLine"`
						StartColumn int `json:"startColumn"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
		} `json:"results"`
	} `json:"runs"`
}

func TestWriteSARIF(t *testing.T) {
	r := fixtureReport(t)
	locate := func(pos string) string { return strings.TrimPrefix(pos, "example.com/m/") }
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, r, locate, SARIFOptions{Version: "v1.2.3", SemanticVersion: "1.2.3", Category: "atomicx/m"}); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.sarif", buf.Bytes())
	if err := sarifschema.Validate(buf.Bytes()); err != nil {
		t.Error(err)
	}

	var log sarifCheck
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || log.Schema != "https://json.schemastore.org/sarif-2.1.0.json" || len(log.Runs) != 1 {
		t.Fatalf("version %q, schema %q, %d runs", log.Version, log.Schema, len(log.Runs))
	}
	run := log.Runs[0]
	if d := run.Tool.Driver; d.Name != "atomicx" || d.FullName != "atomicx v1.2.3" || d.Version != "v1.2.3" || d.SemanticVersion != "1.2.3" || d.InformationURI != InformationURI {
		t.Errorf("driver %+v", d)
	}
	if id := run.AutomationDetails.ID; id != "atomicx/m/" {
		t.Errorf("automationDetails id %q, want the category and a slash", id)
	}
	rules := map[string]string{}
	for i, rule := range run.Tool.Driver.Rules {
		if rule.ShortDescription.Text == "" || rule.FullDescription.Text == "" || rule.Help.Text == "" {
			t.Errorf("rule %d (%s) lacks a description", i, rule.ID)
		}
		if !strings.HasPrefix(rule.HelpURI, InformationURI+"#") {
			t.Errorf("rule %d (%s) has helpUri %q", i, rule.ID, rule.HelpURI)
		}
		rules[rule.ID] = rule.DefaultConfiguration.Level
	}
	if rules["atomicx/pure-non-atomic"] != "error" || rules["atomicx/dependent-non-atomic"] != "warning" || len(rules) != 2 {
		t.Errorf("rules %v", rules)
	}
	got := map[string]string{}
	for _, res := range run.Results {
		if rules[res.RuleID] == "" || run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID || res.Level != rules[res.RuleID] {
			t.Errorf("result with rule %q (index %d), level %q", res.RuleID, res.RuleIndex, res.Level)
		}
		if len(res.Locations) == 0 {
			t.Fatalf("result without a location: %+v", res)
		}
		pl := res.Locations[0].PhysicalLocation
		if pl.Region.StartLine < 1 || pl.Region.StartColumn < 1 || pl.ArtifactLocation.URIBaseID != "%SRCROOT%" || pl.ArtifactLocation.URI != "store/store.go" {
			t.Errorf("location %+v", pl)
		}
		if !strings.Contains(res.Message.Text, "Reproduce: ") || !strings.Contains(res.Message.Text, "ATOMICX_LOG=$PWD/events.jsonl atomicx go test -count=1 -run") {
			t.Errorf("message lacks the command: %q", res.Message.Text)
		}
		got[res.PartialFingerprints[SARIFFingerprint]] = res.RuleID
	}
	want := map[string]string{
		"example.com/m/store.(*Store).add":    "atomicx/pure-non-atomic",
		"example.com/m/store.(*Store).AddAll": "atomicx/pure-non-atomic",
		"example.com/m/store.(*Store).Add":    "atomicx/dependent-non-atomic",
	}
	if len(got) != len(want) {
		t.Errorf("results %v, want %v", got, want)
	}
	for fn, rule := range want {
		if got[fn] != rule {
			t.Errorf("%s: rule %q, want %q", fn, got[fn], rule)
		}
	}
}

func TestWriteSARIFEmptyAndAbsolute(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, &Report{Functions: map[string]*Function{}}, nil, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := sarifschema.Validate(buf.Bytes()); err != nil {
		t.Error(err)
	}
	// Without options: a devel build, the default category.
	for _, want := range []string{`"version": "devel"`, `"fullName": "atomicx devel"`, `"id": "atomicx/"`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no %s in\n%s", want, buf.String())
		}
	}
	if !strings.Contains(buf.String(), `"results": []`) {
		t.Errorf("an empty run must still have a results array:\n%s", buf.String())
	}
	buf.Reset()
	locate := func(pos string) string { return "/src/my dir/store.go:16:17" }
	if err := WriteSARIF(&buf, fixtureReport(t), locate, SARIFOptions{Category: "c/"}); err != nil {
		t.Fatal(err)
	}
	if err := sarifschema.Validate(buf.Bytes()); err != nil {
		t.Error(err)
	}
	if !strings.Contains(buf.String(), `"uri": "file:///src/my%20dir/store.go"`) || strings.Contains(buf.String(), `"uriBaseId"`) {
		t.Errorf("absolute paths must be file URIs without a base:\n%s", buf.String())
	}
}
