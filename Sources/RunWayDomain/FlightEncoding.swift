import Posix
import PropertyLists

extension Flight {
    /// A flight read straight from its encoded userInfo, without building a dictionary: the phone's
    /// hot path. Nil if the bytes are not a well-formed, valid flight (the caller then takes the general
    /// path, which reports what is wrong). Reads the same fields (`Flight.fields`) by the same rules as
    /// `init(userInfo:)`, so the two never disagree.
    public init?(encodedUserInfo bytes: UnsafeRawBufferPointer) {
        var flight = Flight.blank
        var isFlight = false
        var found = 0
        var wrongKind = false
        let fields = Self.fields, table = Self.fieldsByKeyLength
        let complete: Bool = fields.withUnsafeBufferPointer { fields in
            table.withUnsafeBufferPointer { table in
                do throws(DecodeError) {
                    try EncodedDictionary.forEachEntry(bytes) { key, value in
                        if key.count == 4, key.equals("type") {
                            if case let .string(raw) = value { isFlight = raw.equals("flight") }
                            return
                        }
                        guard let index = Self.fieldIndex(key, fields: fields, table: table) else { return }
                        if flight.set(fields[index], encoded: value) { found |= 1 << index } else { wrongKind = true }
                    }
                } catch {
                    return false
                }
                guard isFlight, !wrongKind else { return false }
                // Fields not in the bytes: optional ones keep their zero value; a required one missing is no flight.
                for index in fields.indices where found & (1 << index) == 0 && fields[index].required { return false }
                return true
            }
        }
        guard complete else { return nil }
        // Out of range: the general path says why (and the session quarantines it).
        if FlightLimits.problem(with: flight) != nil { return nil }
        self = flight
    }
}
