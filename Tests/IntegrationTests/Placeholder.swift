// Tests for Integration (filled in with the module).
