/// File names within the file system's limit (`NAME_MAX`, 255 bytes on Linux): a name longer than that
/// cannot be created (`ENAMETOOLONG`), so every name made by joining parts — a transfer's id before
/// the sender's name, a number to tell two files apart — is fitted first.
public enum FileNames {
    /// The longest name a file may have, in bytes (`NAME_MAX`).
    public static let maximumBytes = 255
    /// The longest extension kept when a name is shortened (`.gpx`, `.jpeg`, `.tar.gz`'s `.gz`); a
    /// longer "extension" is part of the name.
    static let maximumExtensionBytes = 16

    /// `prefix + name + tag`, shortened to at most `maximumBytes` bytes of UTF-8: `tag` goes before the
    /// name's extension (`report 2.pdf`), the extension is kept, and what is cut comes from the end of
    /// the name's stem, never inside a character. Total: any input gives a name of at most
    /// `maximumBytes` bytes (empty only if every part is).
    public static func fitting(_ name: String, prefix: String = "", tag: String = "", maximumBytes: Int = maximumBytes) -> String {
        let (stem, dottedExtension) = split(name)
        let whole = prefix + stem + tag + dottedExtension
        if whole.utf8.count <= maximumBytes { return whole }
        let fixed = prefix.utf8.count + tag.utf8.count + dottedExtension.utf8.count
        guard fixed < maximumBytes else { return Self.prefix(whole, bytes: maximumBytes) }
        return prefix + Self.prefix(stem, bytes: maximumBytes - fixed) + tag + dottedExtension
    }

    /// `report.pdf` → (`report`, `.pdf`); a name without an extension, a hidden file's (`.profile`) or
    /// one whose extension is longer than `maximumExtensionBytes` keeps it all as its stem.
    public static func split(_ name: String) -> (stem: String, dottedExtension: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        let dotted = name[dot...]
        guard dotted.utf8.count <= maximumExtensionBytes else { return (name, "") }
        return (String(name[..<dot]), String(dotted))
    }

    /// The longest run of whole characters from the start of `text` that fits in `bytes` bytes.
    static func prefix(_ text: String, bytes: Int) -> String {
        var kept = 0
        var end = text.startIndex
        for index in text.indices {
            let size = text[index].utf8.count
            guard kept + size <= bytes else { break }
            kept += size
            end = text.index(after: index)
        }
        return String(text[..<end])
    }
}
