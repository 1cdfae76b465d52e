package neuroncore

// EngineName is one NeuronCore engine as npukit names it in every output:
// AWS's name (the NeuronCore architecture guide's Tensor, Vector, Scalar
// and GpSimd engines, and the Sync engine, which runs a NEFF's DMA
// triggers), with the short key a NEFF's def.json gives the engine ("pe"
// for PE.json) shown beside it where a file's own name is shown. Neuron
// profiles (.ntff) use AWS's names.
type EngineName struct {
	Name    string // "Tensor"
	NEFFKey string // "pe"
}

// engineNameTable is the one table of engine names (audit item 14:
// inspect said act/dve/pe/pool/sp, sim tensor/scalar/vector/gpsimd/sync
// and a capture Tensor/Scalar/... for the same five engines).
var engineNameTable = [...]EngineName{
	{"Tensor", "pe"},
	{"Vector", "dve"},
	{"Scalar", "act"},
	{"GpSimd", "pool"},
	{"Sync", "sp"},
}

// Engine names (AWS's).
const (
	TensorName = "Tensor"
	VectorName = "Vector"
	ScalarName = "Scalar"
	GpSimdName = "GpSimd"
	SyncName   = "Sync"
)

// EngineNames lists the engines' names in a fixed order.
func EngineNames() []EngineName { return engineNameTable[:] }

// EngineOfNEFFKey is the engine a def.json key names ("pe" -> "Tensor"),
// "" for a key no NeuronCore engine has.
func EngineOfNEFFKey(key string) string {
	for _, e := range engineNameTable {
		if e.NEFFKey == key {
			return e.Name
		}
	}
	return ""
}

// NEFFEngineLabel is how an output names the engine of a def.json key:
// "Tensor (pe)", or the key alone when it names no known engine.
func NEFFEngineLabel(key string) string {
	if n := EngineOfNEFFKey(key); n != "" {
		return n + " (" + key + ")"
	}
	return key
}

// Title is the engine's name in text output: AWS's name ("Tensor",
// "Vector", "Scalar", "GpSimd"), "DMA" for the DMA engines. String keeps
// the lower-case form plans and NKI write ("tensor").
func (e Engine) Title() string {
	switch e {
	case TensorE:
		return TensorName
	case VectorE:
		return VectorName
	case ScalarE:
		return ScalarName
	case GpSimdE:
		return GpSimdName
	case DMA:
		return "DMA"
	}
	return e.String()
}
