// Selection's vocabulary (SDKVersion, DeviceAttributes, VariantRequirements, ReleaseSelector) is
// the catalog's too: every user of the catalog sees it without a second import.
@_exported import ReleaseSelection
