import Posix

/// App version strings: what `--app-version` accepts, the update check's comparison (Foundation's
/// `.numeric`, quirks included) and the version-mismatch comparison (trailing `.0`s ignored).
public enum AppVersion {
    /// The seed's version, the daemons' default.
    public static let current = "1.4"

    /// A problem with `text` as an app version, or nil: `N(.N){0,3}`, each part at most 9999. One line
    /// whatever the text holds (`OneLine.quote`).
    public static func problem(_ text: String) -> String? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let quoted = OneLine.quote(text)
        guard (1...4).contains(parts.count),
            parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } })
        else { return "\(quoted) is not a version: one to four numbers separated by dots (1.4, 1.3.2)" }
        guard parts.allSatisfy({ $0.count <= 4 }) else { return "\(quoted): each part of a version is at most 9999" }
        return nil
    }

    /// Foundation's `compare(_:options: .numeric)`: runs of digits compare as numbers, any other
    /// character one by one, and a proper prefix is smaller. So `1.10 > 1.9`, `1.04 == 1.4`, and —
    /// a pinned quirk — `1.4.0 > 1.4`.
    public static func numericCompare(_ a: String, _ b: String) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        var i = 0, j = 0
        func isDigit(_ s: Unicode.Scalar) -> Bool { ("0"..."9").contains(s) }
        while i < x.count && j < y.count {
            if isDigit(x[i]) && isDigit(y[j]) {
                var ei = i, ej = j
                while ei < x.count && isDigit(x[ei]) { ei += 1 }
                while ej < y.count && isDigit(y[ej]) { ej += 1 }
                let p = x[i..<ei].drop { $0 == "0" }, q = y[j..<ej].drop { $0 == "0" }
                if p.count != q.count { return p.count < q.count ? -1 : 1 }
                for (u, v) in zip(p, q) where u != v { return u.value < v.value ? -1 : 1 }
                i = ei
                j = ej
            } else {
                if x[i] != y[j] { return x[i].value < y[j].value ? -1 : 1 }
                i += 1
                j += 1
            }
        }
        if i < x.count { return 1 }
        if j < y.count { return -1 }
        return 0
    }

    /// The update rule's "is the store's version newer".
    public static func isNewer(_ store: String, than installed: String) -> Bool { numericCompare(store, installed) > 0 }

    /// The version-mismatch rule (a choice, APP_SPEC §4): the numeric parts differ once trailing zeros
    /// are dropped (`1.4 == 1.4.0`, `1.4 ≠ 1.4.1`).
    public static func differ(_ a: String, _ b: String) -> Bool { normalized(a) != normalized(b) }

    static func normalized(_ text: String) -> [String] {
        var parts = text.split(separator: ".", omittingEmptySubsequences: false).map { part -> String in
            let trimmed = part.drop { $0 == "0" }
            return trimmed.isEmpty ? "0" : String(trimmed)
        }
        while parts.count > 1, parts.last == "0" { parts.removeLast() }
        return parts
    }

}
