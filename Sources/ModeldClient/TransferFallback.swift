/// Why a delta, packed or patch transfer gave up (SPEC §14, §16: a bad chunk or block, a 200
/// to a range, a missing file, any mismatch): the caller downloads the whole file instead, once,
/// and never tries another way for that release again.
struct TransferFallback: Error, CustomStringConvertible {
    let reason: String
    /// What the failed attempt had fetched, counted in the update's `bytes_fetched`.
    var bytesFetched: Int64 = 0
    var description: String { reason }
}
