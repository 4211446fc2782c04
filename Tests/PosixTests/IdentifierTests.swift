import Foundation
import Posix
import Testing

@Suite struct IdentifierTests {
    /// `Identifier.isUUID` agrees with the plainest reading of the shape (36 bytes: hex digits of
    /// either case, hyphens at 8, 13, 18 and 23) over strings built near it: UUIDs, each with one byte
    /// changed, cut or added, non-ASCII look-alikes.
    @Test func isUUIDAgreesWithTheShapeReadByteByByte() {
        func reference(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            guard bytes.count == 36 else { return false }
            return bytes.indices.allSatisfy { index in
                [8, 13, 18, 23].contains(index) ? bytes[index] == 0x2D : Array("0123456789abcdefABCDEF".utf8).contains(bytes[index])
            }
        }
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefABCDEFgG-xZ é\u{0}\u{FF10}".unicodeScalars)
        for round in 0..<5_000 {
            var text = UUID().uuidString
            if round % 2 == 0 { text = text.lowercased() }
            var scalars = Array(text.unicodeScalars)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: scalars[Int.random(in: 0..<scalars.count, using: &generator)] = alphabet.randomElement(using: &generator)!
            case 1: scalars.removeLast(Int.random(in: 0...2, using: &generator))
            case 2: scalars.insert(alphabet.randomElement(using: &generator)!, at: Int.random(in: 0...scalars.count, using: &generator))
            default: break
            }
            var candidate = String.UnicodeScalarView()
            candidate.append(contentsOf: scalars)
            let candidateText = String(candidate)
            #expect(Identifier.isUUID(candidateText) == reference(candidateText), "\(candidateText.debugDescription)")
        }
    }
}
