// The seeded generators live in Randomness (the fleet simulator draws from them too); tests
// import them through this target as before.
@_exported import Randomness
