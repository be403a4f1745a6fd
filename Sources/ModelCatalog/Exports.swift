// The catalog's value types (CatalogValue, pure, with selection's vocabulary) are every
// ModelCatalog user's too, without a second import.
@_exported import CatalogValue
