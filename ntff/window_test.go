package ntff

import (
	"reflect"
	"testing"
)

// Counted matches a queue's start and data events inside the window in
// order: a packet that started before the window shifts the matching, so
// its queue counts nothing; queues whose packets start inside count them
// all; a packet whose data comes after the window is not counted.
func TestCountedMatchesStartsInOrder(t *testing.T) {
	c := &Core{
		DMAStarts: []DMAStart{
			{DMAEngine: 1, Queue: 14, T: 90}, // before the window
			{DMAEngine: 1, Queue: 14, T: 150},
			{DMAEngine: 2, Queue: 14, T: 110},
			{DMAEngine: 2, Queue: 14, T: 160},
			{DMAEngine: 2, Queue: 14, T: 195},
		},
		Packets: []Packet{
			{DMAEngine: 1, Queue: 14, Start: 120}, // 0: started at 90
			{DMAEngine: 2, Queue: 14, Start: 130}, // 1
			{DMAEngine: 1, Queue: 14, Start: 170}, // 2: no second start inside
			{DMAEngine: 2, Queue: 14, Start: 180}, // 3
			{DMAEngine: 2, Queue: 14, Start: 210}, // 4: after the window
		},
	}
	// Queue 1.14 inside [100, 200]: starts [150], data [120, 170]: 150
	// is matched with 120 (after it), 170 has no start: nothing counted.
	if got, want := c.Counted(100, 200), []int{1, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("Counted = %v, want %v", got, want)
	}
	// Without start events every data event inside the window counts.
	c.DMAStarts = nil
	if got, want := c.Counted(100, 200), []int{0, 1, 2, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("without starts: Counted = %v, want %v", got, want)
	}
}
