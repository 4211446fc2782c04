@testable import Connectivity
import Posix
import Testing

/// The air's pure parts: what each frame meets (`LinkPipe`), what waits in the air (`AirQueue`), and the
/// conditions' ranges and the relay's cost. Through the binaries: `IntegrationTests/LinkConditionsTests`.
@Suite struct LinkAirTests {
    let shape = LinkShape(latencyMilliseconds: 50, jitterMilliseconds: 20, loss: 0.2, bandwidthKbps: 0)

    func verdicts(seed: UInt64, count: Int, shape: LinkShape, bytes: Int = 300, step: UInt64 = 1_000_000) -> [LinkPipe.Verdict] {
        var pipe = LinkPipe()
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { pipe.admit(bytes: bytes, now: UInt64($0) * step, shape: shape, random: &random) }
    }

    func time(_ verdict: LinkPipe.Verdict) -> UInt64 {
        switch verdict {
        case let .arrive(at), let .lose(at): at
        }
    }

    @Test func theSameSeedDrawsTheSameAirAndAnotherSeedAnother() {
        #expect(verdicts(seed: 7, count: 500, shape: shape) == verdicts(seed: 7, count: 500, shape: shape))
        #expect(verdicts(seed: 7, count: 500, shape: shape) != verdicts(seed: 8, count: 500, shape: shape))
    }

    @Test func jitterNeverReordersAndStaysWithinItsBounds() {
        let all = verdicts(seed: 1, count: 2000, shape: shape)
        let times = all.map(time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "a stream never reorders")
        for (index, at) in times.enumerated() {
            let sent = UInt64(index) * 1_000_000
            #expect(at >= sent + 30_000_000 && at <= sent + 70_000_000, "frame \(index) arrives \(at - sent) ns after it left")
        }
        let lost = all.filter { if case .lose = $0 { true } else { false } }.count
        #expect((300...500).contains(lost), "20% of 2000: \(lost)")
    }

    @Test func lossOfZeroLosesNothingAndOfOneEverything() {
        var none = shape
        none.loss = 0
        #expect(verdicts(seed: 3, count: 1000, shape: none).allSatisfy { if case .arrive = $0 { true } else { false } })
        var all = shape
        all.loss = 1
        #expect(verdicts(seed: 3, count: 1000, shape: all).allSatisfy { if case .lose = $0 { true } else { false } })
    }

    /// 1,000 bytes at 80 kbit/s take 100 ms to carry: frames sent at once leave one after another.
    @Test func theBandwidthSpacesFramesOut() {
        let throttled = LinkShape(latencyMilliseconds: 0, jitterMilliseconds: 0, loss: 0, bandwidthKbps: 80)
        let times = verdicts(seed: 0, count: 5, shape: throttled, bytes: 1000, step: 0).map(time)
        #expect(times == [100, 200, 300, 400, 500].map { UInt64($0) * 1_000_000 })
    }

    @Test func theQueueHandsOutWhatHasArrivedAndStopsAtALostFrame() {
        var queue = AirQueue<Int>()
        queue.append(1, bytes: 10, .arrive(at: 5))
        queue.append(2, bytes: 10, .arrive(at: 5))
        queue.append(3, bytes: 10, .arrive(at: 9))
        queue.append(4, bytes: 10, .lose(at: 12))
        queue.append(5, bytes: 10, .arrive(at: 12))
        #expect(queue.heldBytes == 50 && queue.nextArrival == 5)
        #expect(queue.takeDue(now: 4).items.isEmpty)
        let first = queue.takeDue(now: 9)
        #expect(first.items == [1, 2, 3] && !first.cut && queue.heldBytes == 20)
        let second = queue.takeDue(now: 20)
        #expect(second.items.isEmpty && second.cut && queue.isEmpty && queue.heldBytes == 0, "nothing after the lost frame arrives")
        queue.append(6, bytes: 1, .lose(at: 1))
        queue.append(7, bytes: 1, .arrive(at: 2))
        #expect(queue.takeDue(now: 2, skippingLost: true).items == [7], "the broken variant: the lost frame just vanishes")
    }

    @Test func theRelayAddsItsCostAndTheRangesAreChecked() {
        var conditions = LinkConditions(latencyMilliseconds: 10, jitterMilliseconds: 0, loss: 0, bandwidthKbps: 5000, range: .wifi)
        #expect(conditions.shape == LinkShape(latencyMilliseconds: 70, jitterMilliseconds: 20, loss: 0, bandwidthKbps: 1000))
        conditions.bandwidthKbps = 200
        #expect(conditions.shape.bandwidthKbps == 200)
        conditions.range = .near
        #expect(conditions.shape == LinkShape(latencyMilliseconds: 10, jitterMilliseconds: 0, loss: 0, bandwidthKbps: 200))
        #expect(LinkConditions().shape.isClear && conditions.problem == nil)
        #expect(LinkConditionsChange(latencyMilliseconds: -1).problem != nil)
        #expect(LinkConditionsChange(loss: 1.01).problem != nil)
        #expect(LinkConditionsChange(loss: .nan).problem != nil)
        #expect(LinkConditionsChange(bandwidthKbps: 10_000_001).problem != nil)
        let changed = LinkConditionsChange(loss: 0.5).applied(to: conditions)
        #expect(changed.latencyMilliseconds == 10 && changed.loss == 0.5, "what a change does not name stays")
        #expect(LinkConditionsChange(jitterMilliseconds: 4, reset: true).applied(to: conditions) == LinkConditions(jitterMilliseconds: 4))
    }
}
