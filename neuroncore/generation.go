package neuroncore

import "fmt"

// Generation is one NeuronCore version as a user meets it: the instance
// families built on it, how its cores are grouped on a device, and the
// on-chip architecture the planner and the simulators use.
//
// Sources (public AWS Neuron documentation, 2025-2026):
//   - Inferentia (inf1): 4 NeuronCore-v1 per chip, 8 GiB of device memory
//     per chip ("Inferentia Architecture").
//   - Trainium / Inferentia2 (trn1, trn1n, inf2): 2 NeuronCore-v2, 32 GiB
//     HBM at 820 GB/s, 32 DMA engines, i.e. 16 per core ("Trainium/
//     Inferentia2 Architecture Guide for NKI").
//   - Trainium2 (trn2, trn2u UltraServers): 8 NeuronCore-v3, 96 GiB HBM,
//     128 DMA engines (16 per core); Logical NeuronCore Configuration
//     combines two physical cores into one logical core, LNC=2 being the
//     default ("Trainium2 Architecture", "Logical NeuronCore
//     configuration").
//   - Trainium3 (trn3): 8 NeuronCore-v4, 144 GiB, 128 DMA engines; LNC as
//     on Trainium2 ("Trainium3 Architecture").
//   - DMA engines: 16 per NeuronCore on v2-v4, 27.2 GB/s each on v2 and
//     v3, 38.4 GB/s on v4 ("Introduction to Direct Memory Access (DMA) with
//     NKI").
type Generation struct {
	Version int    `json:"version"` // 1..4
	Name    string `json:"name"`    // "NeuronCore-v3"
	// Chip is the device the cores sit on ("Trainium2").
	Chip string `json:"chip"`
	// Families are the EC2 instance families that carry the chip.
	Families []string `json:"instance_families"`
	// CoresPerDevice is the physical NeuronCores of one device.
	CoresPerDevice int `json:"cores_per_device"`
	// DeviceMemoryGiB is the device (HBM or DRAM) memory of one device.
	DeviceMemoryGiB int `json:"device_memory_gib"`
	// LNCSizes are the logical NeuronCore sizes the generation supports
	// (physical cores per logical core); the first is the default.
	LNCSizes []int `json:"lnc_sizes"`
	// Arch is the on-chip model (SBUF, PSUM, engines, DMA).
	Arch *Arch `json:"-"`
}

// SupportsLNC reports whether n physical cores per logical core is a
// configuration of this generation.
func (g *Generation) SupportsLNC(n int) bool {
	for _, s := range g.LNCSizes {
		if s == n {
			return true
		}
	}
	return false
}

// String is "NeuronCore-v3 (Trainium2: trn2, trn2u)".
func (g *Generation) String() string {
	fam := ""
	for i, f := range g.Families {
		if i > 0 {
			fam += ", "
		}
		fam += f
	}
	return fmt.Sprintf("%s (%s: %s)", g.Name, g.Chip, fam)
}

// Generations lists NeuronCore v1..v4, oldest first.
var Generations = []*Generation{
	{Version: 1, Name: "NeuronCore-v1", Chip: "Inferentia", Families: []string{"inf1"}, CoresPerDevice: 4, DeviceMemoryGiB: 8, LNCSizes: []int{1}, Arch: &V1},
	{Version: 2, Name: "NeuronCore-v2", Chip: "Trainium/Inferentia2", Families: []string{"trn1", "trn1n", "inf2"}, CoresPerDevice: 2, DeviceMemoryGiB: 32, LNCSizes: []int{1}, Arch: &V2},
	{Version: 3, Name: "NeuronCore-v3", Chip: "Trainium2", Families: []string{"trn2", "trn2u"}, CoresPerDevice: 8, DeviceMemoryGiB: 96, LNCSizes: []int{2, 1}, Arch: &V3},
	{Version: 4, Name: "NeuronCore-v4", Chip: "Trainium3", Families: []string{"trn3"}, CoresPerDevice: 8, DeviceMemoryGiB: 144, LNCSizes: []int{2, 1}, Arch: &V4},
}

// GenerationOf returns the generation with the given version (1..4), or nil.
func GenerationOf(version int) *Generation {
	if version < 1 || version > len(Generations) {
		return nil
	}
	return Generations[version-1]
}
