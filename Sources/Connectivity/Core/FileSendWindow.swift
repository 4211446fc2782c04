/// The sender's side of one file transfer on the link, as a pure state machine: announce the file, learn
/// from the receiver where to resume, send chunks while at most `windowBytes` are sent and not yet durable
/// there, and finish. No I/O: the shell reads the chunks the window asks for, sends the frames, and feeds
/// back what the receiver says (`resumed`, `progressed`, `finished`). One file at a time, in the file
/// lane's order; every rule is a unit test (`FileTransferTests`).
struct FileSendWindow: Equatable {
    enum Phase: Equatable {
        /// No file on this link (none queued, or the link is new).
        case idle
        /// `fileBegin` sent; waiting for the receiver's resume point.
        case announced
        /// Sending from the resume point.
        case streaming
    }

    struct Current: Equatable {
        let seq: Int64
        let size: Int64
        /// The next byte to send.
        var next: Int64 = 0
        /// Everything before this is durable at the receiver.
        var durable: Int64 = 0
        /// Where this link's sending started (the resume point), for the log and the progress.
        var resumedAt: Int64 = 0
    }

    private(set) var phase = Phase.idle
    private(set) var current: Current?
    /// The highest file announced on this link (0: none yet): an answer naming one after it names a file
    /// this side never sent here — a violation; one naming an earlier one is stale, and changes nothing.
    private(set) var lastAnnounced: Int64 = 0
    /// The file the counterpart's receiver takes next, as far as this link has told it (its file cursor +
    /// 1 from its handshake, moved on by every file announced here): before a file further on, each
    /// number between goes as a skip (`fileCancel`), so its receiver can hold to the sequence rule. A
    /// number skipped twice (cancelled live, then skipped) is at or below its cursor the second time:
    /// nothing.
    private(set) var peerExpects: Int64 = 1
    let windowBytes: Int
    let chunkBytes: Int

    init(windowBytes: Int = FileTransferLimits.windowBytes, chunkBytes: Int = FileTransferLimits.chunkBytes) {
        self.windowBytes = windowBytes
        self.chunkBytes = chunkBytes
    }

    /// Starts file `seq` (`size` bytes): the shell sends `fileBegin`. False while another file is on
    /// this link (files go one at a time).
    mutating func announce(seq: Int64, size: Int64) -> Bool {
        guard phase == .idle else { return false }
        current = Current(seq: seq, size: size)
        phase = .announced
        lastAnnounced = max(lastAnnounced, seq)
        return true
    }

    /// The numbers to give up as skips before announcing `seq` (files cancelled or failed before this
    /// link, or delivered before the receiver's cursor moved back), `seq` then taken as the next.
    mutating func skips(before seq: Int64) -> ClosedRange<Int64>? {
        defer { peerExpects = max(peerExpects, seq + 1) }
        return seq > peerExpects ? peerExpects...(seq - 1) : nil
    }

    /// What an answer about file `seq` (`fileResume`, `fileProgress`, `fileAck`, `fileError`) is, before
    /// its rule: about the file on the link, stale (a file of this link already over), or about a file
    /// never announced on it.
    enum Subject: Equatable { case current, stale, neverAnnounced }

    func subject(_ seq: Int64) -> Subject {
        if let current, current.seq == seq { return .current }
        return seq <= lastAnnounced && seq > 0 ? .stale : .neverAnnounced
    }

    /// The receiver has the first `offset` bytes durably: sending starts there. Nil if it is not about
    /// the file announced (a stale answer), or the offset is impossible — the shell closes the link then.
    enum Resume: Equatable {
        case ignore
        case violation(String)
        case start(from: Int64)
    }

    mutating func resumed(seq: Int64, at offset: Int64) -> Resume {
        switch subject(seq) {
        case .stale: return .ignore
        case .neverAnnounced: return .violation("fileResume for file \(seq), which was never announced on this link")
        case .current: break
        }
        guard var file = current, phase == .announced else { return .violation("a second fileResume for file \(seq)") }
        guard offset >= 0, offset <= file.size else { return .violation("resume point \(offset) outside file \(seq)'s 0...\(file.size) bytes") }
        file.next = offset
        file.durable = offset
        file.resumedAt = offset
        current = file
        phase = .streaming
        return .start(from: offset)
    }

    /// The next chunk to send, if the window has room: where it starts and how long it is. The last
    /// chunk of a file may be short; an empty file has none.
    mutating func nextChunk() -> (seq: Int64, offset: Int64, length: Int)? {
        guard phase == .streaming, var file = current, file.next < file.size else { return nil }
        guard file.next - file.durable < Int64(windowBytes) else { return nil }
        let length = Int(min(Int64(chunkBytes), file.size - file.next))
        let chunk = (file.seq, file.next, length)
        file.next += Int64(length)
        current = file
        return chunk
    }

    /// The receiver made the first `offset` bytes durable: the window moves. Returns the new durable
    /// offset when it moved; a report beyond what was sent is a violation.
    enum Progress: Equatable {
        case ignore
        case violation(String)
        case moved(to: Int64)
    }

    mutating func progressed(seq: Int64, to offset: Int64) -> Progress {
        switch subject(seq) {
        case .stale: return .ignore
        case .neverAnnounced: return .violation("fileProgress for file \(seq), which was never announced on this link")
        case .current: break
        }
        guard var file = current, phase == .streaming else { return .violation("fileProgress for file \(seq) before its fileResume") }
        guard offset <= file.next else { return .violation("file \(seq) reported durable to \(offset), but only \(file.next) bytes were sent") }
        guard offset > file.durable else { return .ignore }
        file.durable = offset
        current = file
        return .moved(to: offset)
    }

    /// A `fileAck` up to `seq` (the receiver delivered every file up to it to its app), against what this
    /// side knows: at or below what the outbox has as acknowledged (`acknowledged`) is nothing new; the
    /// file on the link is finished only once the receiver has reported all of its bytes durable — an
    /// acknowledgement of a file not complete there, or never announced here, is a violation (issue 51:
    /// one forged `fileAck` dropped a file never delivered). A stale one (a file of this link already
    /// over: refused, cancelled) changes nothing. `trusting`: the rule before (a test switch).
    func acknowledgement(upTo seq: Int64, acknowledged: Int64, trusting: Bool = false) -> Acknowledged<Int64> {
        if seq <= acknowledged { return .nothingNew }
        if trusting { return .moved(min(seq, current?.seq ?? acknowledged)) }
        switch subject(seq) {
        case .stale: return .nothingNew
        case .neverAnnounced: return .violation("fileAck for file \(seq), which was never announced on this link")
        case .current:
            guard let file = current, phase == .streaming, file.durable == file.size else {
                let durable = current.map { phase == .streaming ? "\($0.durable) of its \($0.size) bytes durable" : "not even resumed" } ?? "-"
                return .violation("fileAck for file \(seq), which the receiver has not reported complete (\(durable))")
            }
            return .moved(seq)
        }
    }

    /// Every chunk has been sent (a cancel is too late once it is).
    var allSent: Bool {
        guard let current, phase == .streaming else { return false }
        return current.next >= current.size
    }

    /// File `seq` is over (delivered, failed or cancelled): the next one may be announced.
    mutating func finished(seq: Int64) -> Bool {
        guard current?.seq == seq else { return false }
        current = nil
        phase = .idle
        return true
    }

    /// The link went down: whatever was in flight is resumed from the receiver's point on the next one.
    mutating func linkClosed() {
        current = nil
        phase = .idle
        lastAnnounced = 0
    }

    /// A new link: the counterpart's receiver has every file up to `peerCursor` (its handshake's
    /// `fileResumeSeq`) and takes the one after it next.
    mutating func resume(peerCursor: Int64) {
        linkClosed()
        peerExpects = max(1, peerCursor + 1)
    }
}
