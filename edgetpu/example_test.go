package edgetpu_test

import (
	"fmt"
	"log"

	"github.com/npukit/npukit/diag"

	"github.com/npukit/npukit/edgetpu"
)

// Write a compiled Edge TPU model (a TFLite flatbuffer whose
// edgetpu-custom-op carries a DarwiNN package) and read it back.
func ExampleWrite() {
	data, err := edgetpu.Write(edgetpu.Synthetic(edgetpu.DemoSpec()))
	if err != nil {
		log.Fatal(err)
	}
	m, err := edgetpu.Read(data)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range m.Packages() {
		for _, e := range p.Executables {
			fmt.Println(e.Type)
		}
	}
	fmt.Println("errors:", edgetpu.Check(m).Count(diag.Error))
	// Output:
	// EXECUTION_ONLY
	// PARAMETER_CACHING
	// errors: 0
}
