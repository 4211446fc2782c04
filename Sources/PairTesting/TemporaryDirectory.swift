import Foundation

/// A fresh directory with a short path (socket paths must fit in 107 bytes), for unit tests; remove it
/// with `removeDirectory`.
package func makeTemporaryDirectory(_ tag: String = "t") -> String {
    makeScratchDirectory(tag)
}

package func removeDirectory(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}
