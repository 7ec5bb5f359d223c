// Package sarifschema validates SARIF logs against the official SARIF
// 2.1.0 JSON schema, for tests: every SARIF log that atomicx writes in a
// test goes through Validate. It is imported by tests only, so neither
// the schema nor the validator ends up in the atomicx binary.
//
// testdata/sarif-schema-2.1.0.json is the OASIS schema; PROVENANCE.md
// beside it says where it comes from and under which terms.
package sarifschema

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed testdata/sarif-schema-2.1.0.json
var schemaJSON []byte

// schemaID is the schema's own "id": the compiler resolves it without a
// network access, from the embedded copy.
const schemaID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("reading the SARIF schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat() // "uri" and "date-time" values are checked too
	if err := c.AddResource(schemaID, doc); err != nil {
		return nil, fmt.Errorf("adding the SARIF schema: %w", err)
	}
	return c.Compile(schemaID)
})

// Validate reports whether log is a valid SARIF 2.1.0 log: nil, or an
// error that lists every place where it is not.
func Validate(log []byte) error {
	sch, err := compiled()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("not a valid SARIF 2.1.0 log: %v", err)
	}
	return nil
}
