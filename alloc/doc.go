// Package alloc solves static memory allocation: given buffers, each with
// a size and a lifetime (and optionally gaps, alignment and a fixed
// offset), place them at byte offsets so that no two buffers alive at the
// same time overlap and everything fits a capacity. This is the problem
// ML compilers solve for on-chip scratchpads (TPU, NPU SRAM, SBUF).
//
// Problems are read from and written to the CSV format of MiniMalloc
// (Moffitt, ASPLOS 2023: id,lower,upper,size[,offset]) with the column
// conventions of other producers (ReadCSV, WriteCSV; Table keeps what
// the file said). Exact finds a placement or proves none exists within a
// capacity (a portfolio of searches in the spirit of MiniMalloc's
// canonical-solution branch and bound); Heuristic and BestEffort place
// fast without proof; Minimize looks for the smallest capacity. Problems
// too large to search whole (real compiler traces of 10^4-10^5 buffers)
// get the skyline placements (canonical order without backtracking, over
// a time index), the peak-first placement (the window around the
// live-bytes peak solved exactly, the rest placed around it; a window
// that does not fit at the peak raises the lower bound) and Sweep; the
// answer states its gap to the best proven lower bound. Validate and
// Check report what is wrong with a placement or a problem as diagnostics.
package alloc
