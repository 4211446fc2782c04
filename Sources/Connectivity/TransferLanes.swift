/// The queues a session sends in, each with its own sequence numbers, watermarks, cancellations and, on
/// the receiver, its own cursor: a transfer in one lane never waits behind another lane's, and order holds
/// within each. `complication` goes first (Apple: "placed at the front of the queue"), files are
/// streamed in chunks beside the rest.
///
/// A lane is one row: what differs between lanes is its `LaneSpec` (below), and what the session keeps
/// per lane is a `Lanes` value keyed by it — the core's windows and cursors, the handshake's resume
/// points, the shell's outboxes. Adding a lane is a case here, its row and its slot in `Lanes`, its two
/// frame types (`Frame.swift`) and its statements and tables (`OutboxSQL.swift`): docs/architecture.md,
/// "Adding a transfer lane".
package enum TransferLane: String, Sendable, CaseIterable {
    case userInfo
    case complication
    case file

    /// This lane's row of the table.
    var spec: LaneSpec { LaneSpec.table[self] }

    /// The lanes in the order the pump sends them and finished transfers are told: complications first.
    static let inOrder: [TransferLane] = [.complication, .userInfo, .file]
    /// The lanes whose transfers travel whole, one frame each, under a `SendWindow`, in `inOrder`'s order.
    static let sequenced: [TransferLane] = inOrder.filter { $0.spec.kind == .sequenced }

    /// The lane whose transfers travel in (for files: begin with) frames of `type`, if any: content for
    /// the app, which the watch's system launches it for.
    package static func beginning(with type: FrameType) -> TransferLane? {
        allCases.first { LaneSpec.table[$0].frame == type }
    }

    /// The sequenced lane whose transfers travel in frames of `type`, if any.
    static func carrying(_ type: FrameType) -> TransferLane? {
        for lane in sequenced where LaneSpec.table[lane].frame == type { return lane }
        return nil
    }

    /// The sequenced lane whose acknowledgements travel in frames of `type`, if any.
    static func acknowledged(by type: FrameType) -> TransferLane? {
        for lane in sequenced where LaneSpec.table[lane].ack == type { return lane }
        return nil
    }
}

/// What makes a lane a lane, declared once: its frames, its sender's window, how its pump reads, its
/// handshake field, its statements and tables, its log line. Read wherever code picks a lane — never a
/// ternary on the lane's name.
struct LaneSpec: Sendable {
    enum Kind: Sendable, Equatable {
        /// Whole transfers, each one frame (sequence number + body), acknowledged by a cumulative `ack`:
        /// the pump's `SendWindow`, the receiver's batch transaction (`ReceiveTransaction`).
        case sequenced
        /// Files, one at a time in chunks: their own sender (`FileSendWindow`) and receiver
        /// (`SessionFileReceiver`); the lane's outbox, cursor and handshake field are shared with the rest.
        case files
    }

    let kind: Kind
    /// The frame a transfer travels in (for files, the frame that announces one: `fileBegin`).
    let frame: FrameType
    /// The frame that says every transfer up to a sequence number is durable at the receiver.
    let ack: FrameType
    /// The sender's window, transfers and bytes in flight at most; nil: the session's configuration's
    /// (`windowTransfers`, `windowBytes`).
    let window: (transfers: Int, bytes: Int)?
    /// Entries the pump reads from the outbox at once, at most.
    let page: Int
    /// Whether `SessionConfiguration.maximumTransfersPerSecond` paces it.
    let paced: Bool
    /// The handshake's field for the lane's receive cursor (`Handshake.resume`), left out while 0 unless
    /// `resumeAlwaysSent` (the userInfo lane's, required: every handshake has carried it since the first build).
    let resumeKey: String
    let resumeAlwaysSent: Bool
    /// Its statements, literals each prepared once (`Database.statement(literal:)` caches by address).
    let sql: OutboxSQL
    /// Its tables, as a watch switch parks and restores them (`PairedWatches`).
    let tables: (outbox: String, state: String, cancelled: String)
    /// The log event of a committed batch received in it.
    let batchEvent: String

    /// One row per lane.
    static let table = Lanes<LaneSpec>(
        userInfo: LaneSpec(
            kind: .sequenced, frame: .userInfo, ack: .ack, window: nil, page: 256, paced: true, resumeKey: "resumeSeq", resumeAlwaysSent: true,
            sql: .userInfo, tables: ("cx_outbox", "cx_outbox_state", "cx_cancelled"), batchEvent: "receive.batch"),
        complication: LaneSpec(
            kind: .sequenced, frame: .complicationUserInfo, ack: .complicationAck, window: (64, 4 << 20), page: 64, paced: false,
            resumeKey: "complicationResumeSeq", resumeAlwaysSent: false, sql: .complication,
            tables: ("cx_complication_outbox", "cx_complication_outbox_state", "cx_complication_cancelled"),
            batchEvent: "receive.complication-batch"),
        file: LaneSpec(
            kind: .files, frame: .fileBegin, ack: .fileAck, window: (1, FileTransferLimits.windowBytes), page: 1, paced: false,
            resumeKey: "fileResumeSeq", resumeAlwaysSent: false, sql: .file, tables: ("cx_file_outbox", "cx_file_outbox_state", "cx_file_cancelled"),
            batchEvent: "receive.file"))
}

/// A value for each lane, stored in place: read and changed through `subscript(lane)` with no dictionary
/// and no allocation (the pump and the receiver look a lane up per batch, on the benchmarked path).
package struct Lanes<Value> {
    package var userInfo: Value
    package var complication: Value
    package var file: Value

    package init(userInfo: Value, complication: Value, file: Value) {
        self.userInfo = userInfo
        self.complication = complication
        self.file = file
    }

    /// `value` for every lane.
    package init(repeating value: Value) {
        self.init(userInfo: value, complication: value, file: value)
    }

    /// Each lane's value made by `make`.
    package init(_ make: (TransferLane) throws -> Value) rethrows {
        self.init(userInfo: try make(.userInfo), complication: try make(.complication), file: try make(.file))
    }

    package subscript(lane: TransferLane) -> Value {
        _read {
            switch lane {
            case .userInfo: yield userInfo
            case .complication: yield complication
            case .file: yield file
            }
        }
        _modify {
            switch lane {
            case .userInfo: yield &userInfo
            case .complication: yield &complication
            case .file: yield &file
            }
        }
    }
}

extension Lanes: Equatable where Value: Equatable {}
extension Lanes: Sendable where Value: Sendable {}
