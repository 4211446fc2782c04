import Connectivity
import Posix
import Testing
import PropertyLists
@testable import RunWayApp
@testable import RunWayDomain

/// The phone's fast path (`Flight(encodedUserInfo:)`) against the general one (decode the dictionary,
/// then `Flight(userInfo:)`): never looser, and equal wherever it answers.
@Suite struct FlightEncodingTests {
    func fast(_ bytes: [UInt8]) -> Flight? { bytes.withUnsafeBytes { Flight(encodedUserInfo: $0) } }

    func general(_ bytes: [UInt8]) -> Flight? {
        guard let userInfo = try? PropertyListCodec.decodeDictionary(bytes) else { return nil }
        return try? Flight(userInfo: userInfo)
    }

    @Test func readsWhatTheWatchSends() {
        var generator = FlightGenerator(seed: 21)
        for flight in generator.flights(count: 50, distanceKm: nil, now: 1.8e9) {
            let bytes = PropertyListCodec.encode(flight.userInfo)
            #expect(fast(bytes) == flight)
        }
    }

    @Test func leavesOtherUserInfoToTheGeneralPath() {
        #expect(fast(PropertyListCodec.encode(["type": .string("note"), "id": .string("x")])) == nil)
        var generator = FlightGenerator(seed: 2)
        var missing = generator.flight(distanceKm: 5, endingAt: 1e9).userInfo
        missing["durationSeconds"] = nil
        #expect(fast(PropertyListCodec.encode(missing)) == nil)
        // A non-ASCII key is legal, but not for the fast path.
        var exotic = generator.flight(distanceKm: 5, endingAt: 1e9).userInfo
        exotic["é"] = .integer(1)
        let bytes = PropertyListCodec.encode(exotic)
        #expect(fast(bytes) == nil)
        #expect(general(bytes) != nil)
    }

    @Test func neverAcceptsWhatTheGeneralPathRefusesOrReadsItDifferently() {
        var generator = FlightGenerator(seed: 9)
        var random = SeededGenerator(seed: 77)
        let originals = generator.flights(count: 20, distanceKm: nil, now: 1.8e9).map { PropertyListCodec.encode($0.userInfo) }
        var answered = 0
        for round in 0..<4000 {
            var bytes = originals[round % originals.count]
            switch round % 4 {
            case 0:  // flip a bit
                let index = Int.random(in: 0..<bytes.count, using: &random)
                bytes[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
            case 1:  // cut
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
            case 2:  // overwrite a byte in the header region (keys, tags, lengths)
                bytes[Int.random(in: 0..<min(400, bytes.count), using: &random)] = UInt8.random(in: 0...255, using: &random)
            default:  // insert a byte
                bytes.insert(UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0..<bytes.count, using: &random))
            }
            if let flight = fast(bytes) {
                answered += 1
                #expect(general(bytes) == flight, "round \(round)")
            }
        }
        #expect(answered > 100)  // the mutations did leave many flights readable
    }
}
