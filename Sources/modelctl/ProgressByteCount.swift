extension Int64 {
    /// "512 B", "1.5 KiB", "20.0 GiB": binary units, as operators read file sizes.
    var byteCountText: String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(self)
        var unit = 0
        while value >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(self) B" : "\((value * 10).rounded() / 10) \(units[unit])"
    }
}
