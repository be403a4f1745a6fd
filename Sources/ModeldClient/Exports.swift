import ReleaseSelection

// The selection vocabulary the client's API names, and only that (SPEC §13.2: implementation
// modules are not re-exported): apps configure device attributes and read a release's chunk
// list, packed form and patches without importing ReleaseSelection, which stays an
// implementation module.
public typealias DeviceAttributes = ReleaseSelection.DeviceAttributes
public typealias ChunkListReference = ReleaseSelection.ChunkListReference
public typealias PackedReference = ReleaseSelection.PackedReference
public typealias PatchReference = ReleaseSelection.PatchReference
public typealias ReleaseBase = ReleaseSelection.ReleaseBase
public typealias ReleaseLicense = ReleaseSelection.ReleaseLicense
/// A release as the update check answers it (SPEC §4.1): the document server and client share.
public typealias ReleaseDocument = ReleaseSelection.ReleaseDocument
