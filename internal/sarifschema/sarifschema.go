// Package sarifschema validates SARIF logs against the SARIF 2.1.0 JSON
// schema (errata 01), vendored here unchanged (see README.md). Tests use it
// to prove that npukit's SARIF output is what code-scanning services read.
package sarifschema

import (
	"bytes"
	_ "embed"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed sarif-schema-2.1.0.json
var schemaJSON []byte

var (
	once     sync.Once
	compiled *jsonschema.Schema
	compErr  error
)

// Validate reports whether log is a valid SARIF 2.1.0 log.
func Validate(log []byte) error {
	once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			compErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if compErr = c.AddResource("sarif-schema-2.1.0.json", doc); compErr != nil {
			return
		}
		compiled, compErr = c.Compile("sarif-schema-2.1.0.json")
	})
	if compErr != nil {
		return compErr
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		return err
	}
	return compiled.Validate(inst)
}
