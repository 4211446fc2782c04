import Foundation

/// A fresh directory with a short path (socket paths must fit in 107 bytes), removed by `cleanup`.
func makeTemporaryDirectory(_ tag: String = "t") -> String {
    let template = "/tmp/rw-\(tag)-XXXXXX"
    var bytes = Array(template.utf8CString)
    guard let pointer = mkdtemp(&bytes) else { fatalError("mkdtemp failed") }
    return String(cString: pointer)
}

func removeDirectory(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}
