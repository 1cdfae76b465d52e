package neuroncore

// SimulateAllReaders is SimulateExecution with the redundant
// write-after-read edges (every reader since the last write), for the
// external tests that compare the two.
func SimulateAllReaders(x *Execution) (*SimResult, error) { return simulateExecution(x, true) }
