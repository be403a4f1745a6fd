// Selection's vocabulary (SDKVersion, DeviceAttributes, VariantRequirements, ReleaseSelector) is
// the catalog's too: every user of ModelCatalog sees it without a second import.
@_exported import ReleaseSelection
