package relayout

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/npukit/npukit/internal/conformance"
)

type goldenLayer struct {
	Name         string `json:"name"`
	SizeBytes    int64  `json:"size_bytes"`
	Y            int    `json:"y_dim"`
	X            int    `json:"x_dim"`
	Z            int    `json:"z_dim"`
	DataType     string `json:"data_type"`
	ExecCount    int    `json:"execution_count_per_inference"`
	LayoutPresnt bool   `json:"output_layout_present"`
	Layout       struct {
		YTile      []int32 `json:"y_coordinate_to_linear_tile_id_map"`
		XTile      []int32 `json:"x_coordinate_to_linear_tile_id_map"`
		TileOffset []int32 `json:"linearized_tile_byte_offset"`
		XLocal     []int32 `json:"x_coordinate_to_local_byte_offset"`
		YLocal     []int32 `json:"y_coordinate_to_local_y_offset"`
		RowSize    []int32 `json:"x_coordinate_to_local_y_row_size"`
	} `json:"output_layout"`
	Check *struct {
		ElemBytes  int   `json:"data_type_bytes"`
		MaxSrcEnd  int64 `json:"max_src_byte_end"`
		Within     bool  `json:"within_size_bytes"`
		Injective  bool  `json:"injective"`
		IdentityLy bool  `json:"identity_layout"`
	} `json:"relayout_check"`
}

var elemSize = map[string]int{"FIXED_POINT8": 1, "SIGNED_FIXED_POINT8": 1, "FIXED_POINT16": 2, "SIGNED_FIXED_POINT16": 2,
	"BFLOAT": 2, "HALF": 2, "SIGNED_FIXED_POINT32": 4, "SINGLE": 4}

func goldenOutputs(t *testing.T) map[string][]goldenLayer {
	dir := conformance.Corpus(t, "edgetpu/golden")
	out := map[string][]goldenLayer{}
	for _, f := range conformance.Files(t, dir, "*.json") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var g struct {
			Ops []struct {
				Packages []struct {
					Executables []struct {
						Outputs []goldenLayer `json:"output_layers"`
					} `json:"executables"`
				} `json:"packages"`
			} `json:"edgetpu_custom_ops"`
		}
		if err := json.Unmarshal(b, &g); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, op := range g.Ops {
			for _, p := range op.Packages {
				for _, e := range p.Executables {
					out[filepath.Base(f)] = append(out[filepath.Base(f)], e.Outputs...)
				}
			}
		}
	}
	return out
}

func fromGolden(l goldenLayer) Output {
	o := Output{Y: l.Y, X: l.X, Z: l.Z, ElemSize: elemSize[l.DataType], SizeBytes: l.SizeBytes, ExecCount: l.ExecCount,
		Signed: l.DataType == "SIGNED_FIXED_POINT8" || l.DataType == "SIGNED_FIXED_POINT16"}
	if l.LayoutPresnt {
		o.Layout = &Layout{l.Layout.YTile, l.Layout.XTile, l.Layout.TileOffset, l.Layout.XLocal, l.Layout.YLocal, l.Layout.RowSize}
	}
	return o
}

// Every output layer of every corpus model: every element maps inside
// size_bytes, the map is injective and reaches the golden's last byte, and
// relayout(toDevice(x)) == x for random x.
func TestCorpusOutputLayers(t *testing.T) {
	layers := 0
	for file, outs := range goldenOutputs(t) {
		for _, l := range outs {
			o := fromGolden(l)
			if err := o.Validate(); err != nil {
				t.Errorf("%s %s: %v", file, l.Name, err)
				continue
			}
			n, _ := o.PlainElements()
			seen := make(map[int64]bool, n)
			maxEnd := int64(0)
			o.each(func(_, dev int64) bool {
				if seen[dev] {
					t.Errorf("%s %s: device element %d used twice", file, l.Name, dev)
					return false
				}
				seen[dev] = true
				maxEnd = max(maxEnd, (dev+1)*int64(o.ElemSize))
				return true
			})
			if l.Check != nil && l.Check.MaxSrcEnd != maxEnd {
				t.Errorf("%s %s: last device byte %d, golden %d", file, l.Name, maxEnd, l.Check.MaxSrcEnd)
			}
			roundTrip(t, o, 2)
			layers++
		}
	}
	if layers < 20 {
		t.Fatalf("only %d output layers checked", layers)
	}
	t.Logf("%d output layers", layers)
}

func TestDeeplabKnownIndex(t *testing.T) {
	outs := goldenOutputs(t)["deeplab_mobilenet_edgetpu_slim_cityscapes_quant_edgetpu.json"]
	if len(outs) == 0 {
		t.Fatal("deeplab golden has no outputs")
	}
	o := fromGolden(outs[0])
	if o.Y != 33 || o.X != 33 || o.Z != 19 {
		t.Fatalf("shape %dx%dx%d", o.Y, o.X, o.Z)
	}
	got, err := o.Layout.DeviceIndex(10, 20, 5)
	if err != nil || got != 8885 {
		t.Fatalf("(10,20,5) -> %d, %v; want 8885", got, err)
	}
}
