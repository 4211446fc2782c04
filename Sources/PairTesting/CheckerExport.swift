// The invariant checker lives in `PairInvariants`, which the `runway` CLI's scenarios use too
// (`runway scenario run`): re-exported, so every user of the harness sees it as before.
@_exported import PairInvariants
import JSONText

extension FileReport {
    /// The kept files in a `files --json` answer.
    static func kept(_ json: JSONValue, on device: String) -> [KeptFile] {
        (json["received"]?.arrayValue ?? []).map { file in
            KeptFile(
                on: device, name: file["name"]?.stringValue ?? "", bytes: Int64(file["bytes"]?.intValue ?? -1), sha256: file["sha256"]?.stringValue ?? "",
                path: file["path"]?.stringValue ?? "")
        }
    }
}
