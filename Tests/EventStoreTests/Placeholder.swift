// Tests for EventStore (filled in with the module).
