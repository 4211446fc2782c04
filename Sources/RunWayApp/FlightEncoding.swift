import Connectivity

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
        do throws(DecodeError) {
            try EncodedDictionary.forEachEntry(bytes) { key, value in
                if key.count == 4, key.equals("type") {
                    if case let .string(raw) = value { isFlight = raw.equals("flight") }
                    return
                }
                guard let index = Self.fieldIndex(key) else { return }
                if flight.set(Self.fields[index], encoded: value) { found |= 1 << index } else { wrongKind = true }
            }
        } catch {
            return nil
        }
        guard isFlight, !wrongKind else { return nil }
        // Fields not in the bytes: their `absent` value if they have one, else this is no flight.
        for (index, field) in Self.fields.enumerated() where found & (1 << index) == 0 {
            guard let absent = field.absent, flight.set(field, absent) else { return nil }
        }
        // Out of range: the general path says why (and the session quarantines it).
        if FlightLimits.problem(with: flight) != nil { return nil }
        self = flight
    }
}
