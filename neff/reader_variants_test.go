package neff

import "testing"

// Reader variants real producers write that the first reader refused.

// Engine JSON and instruction names in def.json resolve like member names:
// "./SP.json" is member sg00/SP.json (it was reported missing).
func TestEngineNameDotSlash(t *testing.T) {
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
// "1 - tgz+sha256, 2 - tgz+md5", while the spec says a plain tar under 1:
// both are read (the gzip magic decides).
func TestPkg1Gzip(t *testing.T) {
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

// TestTargetArchNames: every spelling of a target the notes and producers
// use maps to its architecture; unknown ones stay unknown.
func TestTargetArchNames(t *testing.T) {
	for target, want := range map[string]Arch{
		"": ArchTrn1, "sunda": ArchTrn1, "V2": ArchTrn1, "trn1": ArchTrn1, "inf2": ArchTrn1,
		"cayman": ArchTrn2, "trn2": ArchTrn2, "mariana": ArchTrn3, "v4": ArchTrn3,
		"inf1": ArchInf1, "tonga": ArchInf1, "Inferentia": ArchInf1, "*": ArchAny, "gpu": ArchUnknown,
	} {
		if got := TargetArch(target); got != want {
			t.Errorf("TargetArch(%q) = %s, want %s", target, got, want)
		}
	}
}
