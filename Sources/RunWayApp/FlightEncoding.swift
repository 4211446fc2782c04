import Connectivity

extension Flight {
    /// A flight read straight from its encoded userInfo, without building a dictionary: the phone's
    /// hot path. Nil if the bytes are not a well-formed flight (the caller then takes the general path,
    /// which reports what is wrong).
    public init?(encodedUserInfo bytes: UnsafeRawBufferPointer) {
        var isFlight = false
        var id: String?, mode: FlightMode?, samples: [UInt8] = []
        var startedAt: Double?, endedAt: Double?, distanceKm: Double?, durationSeconds: Double?
        var pace: Double?, heartRate: Double?
        do throws(DecodeError) {
            try EncodedDictionary.forEachEntry(bytes) { key, value in
                switch (key.count, value) {
                case (4, .string(let raw)) where key.equals("type"): isFlight = raw.equals("flight")
                case (2, .string(let raw)) where key.equals("id"): id = String(decoding: raw, as: UTF8.self)
                case (4, .string(let raw)) where key.equals("mode"): mode = FlightMode(rawValue: String(decoding: raw, as: UTF8.self))
                case (7, .data(let raw)) where key.equals("samples"): samples = Array(raw)
                case (9, _) where key.equals("startedAt"): startedAt = value.number
                case (7, _) where key.equals("endedAt"): endedAt = value.number
                case (10, _) where key.equals("distanceKm"): distanceKm = value.number
                case (15, _) where key.equals("durationSeconds"): durationSeconds = value.number
                case (23, _) where key.equals("averagePaceSecondsPerKm"): pace = value.number
                case (16, _) where key.equals("averageHeartRate"): heartRate = value.number
                default: break
                }
            }
        } catch {
            return nil
        }
        guard isFlight, let id, !id.isEmpty, let mode, let startedAt, let endedAt, let distanceKm,
              let durationSeconds, let pace, let heartRate,
              [startedAt, endedAt, distanceKm, durationSeconds, pace, heartRate].allSatisfy(\.isFinite)
        else { return nil }
        self.init(id: id, startedAt: startedAt, endedAt: endedAt, distanceKm: distanceKm, durationSeconds: durationSeconds,
                  averagePaceSecondsPerKm: pace, averageHeartRate: heartRate, mode: mode, packedSamples: samples)
        // Out of range: the general path says why (and the session quarantines it).
        if FlightLimits.problem(with: self) != nil { return nil }
    }
}
