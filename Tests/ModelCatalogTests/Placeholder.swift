// Tests for ModelCatalog (filled in with the module).
