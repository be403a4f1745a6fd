// Tests for HTTPServer (filled in with the module).
