//go:build js && wasm

// Command npukit-wasm is npukit compiled to WebAssembly for the web viewer
// (web/, built by scripts/build-web.sh). It defines one JavaScript
// function, npukitAnalyse(name, bytes), that returns the viewer's result
// for a file read locally by the page, then calls npukitReady() if the
// page defined it, and stays alive to serve calls.
package main

import (
	"encoding/json"
	"syscall/js"

	"github.com/npukit/npukit/internal/viewer"
)

// version is set at link time by scripts/build-web.sh.
var version = ""

func main() {
	js.Global().Set("npukitVersion", version)
	js.Global().Set("npukitAnalyse", js.FuncOf(func(this js.Value, args []js.Value) any {
		if len(args) != 2 || args[1].Type() != js.TypeObject {
			return `{"error": "npukitAnalyse(name, Uint8Array) takes two arguments"}`
		}
		data := make([]byte, args[1].Get("length").Int())
		js.CopyBytesToGo(data, args[1])
		b, err := json.Marshal(viewer.Analyse(args[0].String(), data))
		if err != nil {
			return `{"error": "internal error: the result could not be encoded"}`
		}
		return string(b)
	}))
	if ready := js.Global().Get("npukitReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}
