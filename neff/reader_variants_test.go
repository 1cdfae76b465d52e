package neff

import "testing"

// Reader variants that fail today in files the NEFF helper may not edit
// (open.go, container.go). Each test is skipped with the reason; remove
// the Skip with the fix.

// Engine JSON and instruction names in def.json are joined to the
// subgraph directory without cleaning (open.go decodeSubgraph): "./SP.json"
// is reported missing although member sg00/SP.json exists. Fix:
// e.Member = sg.Ref(name), e.InstrMember = sg.Ref(instr).
func TestEngineNameDotSlash(t *testing.T) {
	t.Skip("open.go: engine names are not resolved with Subgraph.Ref")
	b := baseBuilder(t)
	sg0(b).Def.Extra["sp"] = jsonString("./SP.json")
	sg0(b).Def.Extra["sp_instr"] = jsonString("./SP.bin")
	b.Subgraphs[0].Engines[0].Key = "spx" // keep the builder from overwriting sp
	raw, err := b.Bytes(PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep, _ := CheckBytes(raw, DefaultLimits(), DefaultRuntime); rep.HasErrors() {
		t.Fatalf("%v", rep)
	}
}

// A pkg_version 1 NEFF whose payload is gzip-compressed: Amazon's KLR
// (leanprover/KLR, KLR/NEFF/Basic.lean) documents packaging_version
// "1 - tgz+sha256, 2 - tgz+md5"; container.go accepts only a plain tar
// under 1. Sniffing the gzip magic would accept both.
func TestPkg1Gzip(t *testing.T) {
	t.Skip("container.go: pkg_version 1 is read as a plain tar only")
	raw, err := baseBuilder(t).Bytes(PackOptions{NoPadding: true}) // pkg 2: gzip tar
	if err != nil {
		t.Fatal(err)
	}
	h, _ := ParseHeader(raw)
	h.PkgVersion = 1
	h.Hash = ComputeHash(raw[HeaderSize:], HashSHA256)
	hb, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if rep, _ := CheckBytes(append(hb, raw[HeaderSize:]...), DefaultLimits(), DefaultRuntime); rep.HasErrors() {
		t.Fatalf("%v", rep)
	}
}
