// Selection's vocabulary (SDKVersion, DeviceAttributes, RulesSnapshot) is part of the client's
// API: apps configure device attributes and read versions without a second import.
@_exported import ReleaseSelection
