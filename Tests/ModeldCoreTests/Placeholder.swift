// Tests for ModeldCore (filled in with the module).
