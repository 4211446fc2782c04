import PropertyLists

extension PropertyListCodec {
    /// Encodes a payload, enforcing at the sender what the receiver enforces: the size limit
    /// (`payloadTooLarge`) and the decoder's nesting limit (`payloadUnsupportedTypes`).
    static func encodeChecked(_ userInfo: UserInfo, limit: Int, what: String) throws(WCError) -> [UInt8] {
        if let problem = undecodableReason(userInfo) {
            throw WCError(.payloadUnsupportedTypes, "\(what) cannot be delivered: \(problem)")
        }
        let encoded = encode(userInfo)
        guard encoded.count <= limit else {
            throw WCError(.payloadTooLarge, "\(what) is \(encoded.count) bytes encoded, more than the \(limit)-byte limit")
        }
        return encoded
    }

}
