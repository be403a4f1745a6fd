import Foundation

extension DeviceAttributes {
    /// The update check's `platform`, `os`, `ram_mb`, `device` and `system_model` parameters (SPEC §3.1, §3.2), the
    /// ones set only.
    var queryItems: [URLQueryItem] {
        var items: [URLQueryItem] = []
        if let platform { items.append(URLQueryItem(name: "platform", value: platform)) }
        if let os { items.append(URLQueryItem(name: "os", value: os.description)) }
        if let ramMB { items.append(URLQueryItem(name: "ram_mb", value: String(ramMB))) }
        if let device { items.append(URLQueryItem(name: "device", value: device)) }
        if let systemModel { items.append(URLQueryItem(name: "system_model", value: systemModel)) }
        return items
    }
}
