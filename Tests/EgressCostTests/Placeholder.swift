// Tests for EgressCost (filled in with the module).
