import Foundation

/// `os_log`'s format strings, written as the device's log shows them to the developer running the app:
/// C's conversions (`%d`, `%5.2f`, `%lx`, `%@`, `%s`, `%%`, `*` widths) with os_log's annotations in braces
/// (`%{public}@`, `%{private}d`, `%{private, mask.hash}s`, `%{bool}d`, `%{BOOL}d`).
///
/// Total over any format and any arguments: each value is written by its own type, never reinterpreted as
/// the specifier's C type (`%s` given a Swift `String` writes the string, `%d` given a `Double` writes the
/// number), so no format can read past its arguments or crash. A specifier with no argument left is
/// written `<decode: missing data>`, as Apple's log writes it; arguments left over are ignored; a `%`
/// that starts no specifier is written as it is.
enum OSLogFormat {
    /// The widest width or precision honoured (a larger one is this).
    static let widest = 1024

    static func render(_ format: String, _ arguments: [any CVarArg]) -> String {
        var output = ""
        var remaining = arguments[...]
        var scalars = Array(format.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "%" else {
                output.unicodeScalars.append(scalar)
                continue
            }
            if scalars.first == "%" {
                scalars.removeFirst()
                output += "%"
                continue
            }
            let start = scalars
            guard let specifier = Specifier.parse(&scalars) else {
                // Not a conversion: written as it came.
                scalars = start
                output += "%"
                continue
            }
            var width = specifier.width
            if specifier.widthFromArgument { width = remaining.popFirst().flatMap(integer).map { Int(clamping: $0) } }
            var precision = specifier.precision
            if specifier.precisionFromArgument { precision = remaining.popFirst().flatMap(integer).map { Int(clamping: $0) } }
            guard let argument = remaining.popFirst() else {
                output += "<decode: missing data>"
                continue
            }
            let text = specifier.write(argument, width: width, precision: precision)
            output += specifier.privacy.apply(text)
        }
        return output
    }

    /// An integer argument's value, whatever its integer type (`nil` for any other value).
    static func integer(_ value: any CVarArg) -> Int64? {
        switch value {
        case let value as any BinaryInteger: Int64(truncatingIfNeeded: value)
        case let value as Bool: value ? 1 : 0
        case let value as NSNumber where !CFNumberIsFloat(value): value.int64Value
        default: nil
        }
    }

    static func floating(_ value: any CVarArg) -> Double? {
        switch value {
        case let value as Double: value
        case let value as Float: Double(value)
        case let value as any BinaryInteger: Double(value)
        case let value as NSNumber: value.doubleValue
        default: nil
        }
    }

    /// Whether a number was made from a real (`NSNumber(value: 2.0)`), not an integer.
    private static func CFNumberIsFloat(_ number: NSNumber) -> Bool {
        let type = String(cString: number.objCType)
        return type == "d" || type == "f"
    }

    /// One `%…` conversion.
    struct Specifier {
        var privacy = OSLogPrivacy.auto
        var boolean: OSLogBoolFormat?
        var flags = ""
        var width: Int?
        var widthFromArgument = false
        var precision: Int?
        var precisionFromArgument = false
        var conversion: Unicode.Scalar = "d"

        static let flagCharacters: Set<Unicode.Scalar> = ["-", "+", " ", "#", "0", "'"]
        static let lengthCharacters: Set<Unicode.Scalar> = ["h", "l", "q", "z", "t", "j", "L"]
        static let conversions: Set<Unicode.Scalar> = [
            "d", "i", "u", "o", "x", "X", "f", "F", "e", "E", "g", "G", "a", "A", "c", "C", "s", "S", "@", "p", "D", "U", "O",
        ]

        /// The specifier after a `%`, consuming it from `scalars`; nil when none is there.
        static func parse(_ scalars: inout ArraySlice<Unicode.Scalar>) -> Specifier? {
            var specifier = Specifier()
            if scalars.first == "{" {
                guard let close = scalars.firstIndex(of: "}") else { return nil }
                let annotation = String(String.UnicodeScalarView(scalars[scalars.index(after: scalars.startIndex)..<close]))
                scalars = scalars[scalars.index(after: close)...]
                specifier.annotate(annotation)
            }
            while let next = scalars.first, flagCharacters.contains(next) {
                if !specifier.flags.unicodeScalars.contains(next) { specifier.flags.unicodeScalars.append(next) }
                scalars.removeFirst()
            }
            if scalars.first == "*" {
                scalars.removeFirst()
                specifier.widthFromArgument = true
            } else {
                specifier.width = number(&scalars)
            }
            if scalars.first == "." {
                scalars.removeFirst()
                if scalars.first == "*" {
                    scalars.removeFirst()
                    specifier.precisionFromArgument = true
                } else {
                    specifier.precision = number(&scalars) ?? 0
                }
            }
            while let next = scalars.first, lengthCharacters.contains(next) { scalars.removeFirst() }
            guard let conversion = scalars.first, conversions.contains(conversion) else { return nil }
            scalars.removeFirst()
            specifier.conversion = conversion
            return specifier
        }

        /// A run of digits, clamped to `widest`.
        static func number(_ scalars: inout ArraySlice<Unicode.Scalar>) -> Int? {
            var value: Int?
            while let next = scalars.first, ("0"..."9").contains(next) {
                value = min(OSLogFormat.widest, (value ?? 0) * 10 + Int(next.value - 48))
                scalars.removeFirst()
            }
            return value
        }

        /// `{public}`, `{private}`, `{sensitive}`, `{private, mask.hash}`, `{bool}`, `{BOOL}`; others (types
        /// such as `{time_t}`) change nothing here.
        mutating func annotate(_ annotation: String) {
            let words = annotation.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let hashed = words.contains("mask.hash")
            for word in words {
                switch word {
                case "public": privacy = .public
                case "private": privacy = hashed ? .private(mask: .hash) : .private
                case "sensitive": privacy = hashed ? .sensitive(mask: .hash) : .sensitive
                case "bool": boolean = .truth
                case "BOOL": boolean = .answer
                default: break
                }
            }
        }

        /// `argument` written for this conversion.
        func write(_ argument: any CVarArg, width: Int?, precision: Int?) -> String {
            let width = width.map { max(-OSLogFormat.widest, min(OSLogFormat.widest, $0)) }  // abs(Int.min) traps
            let precision = precision.map { max(0, min(OSLogFormat.widest, $0)) }
            let leftAligned = flags.contains("-") || (width ?? 0) < 0
            let columns = width.map { abs($0) }
            if let boolean, let value = OSLogFormat.integer(argument) {
                let text = boolean == .answer ? (value != 0 ? "YES" : "NO") : (value != 0 ? "true" : "false")
                return pad(text, columns: columns, left: leftAligned)
            }
            switch conversion {
            case "d", "i", "D":
                if let value = OSLogFormat.integer(argument) { return c(Int64(value), "lld", columns: columns, left: leftAligned, precision: precision) }
            case "u", "o", "x", "X", "U", "O":
                if let value = unsignedValue(argument) {
                    let conversion = conversion == "U" ? "u" : conversion == "O" ? "o" : String(self.conversion)
                    return c(value, "ll" + conversion, columns: columns, left: leftAligned, precision: precision)
                }
            case "f", "F", "e", "E", "g", "G", "a", "A":
                if let value = OSLogFormat.floating(argument) {
                    return c(value, String(conversion), columns: columns, left: leftAligned, precision: precision)
                }
            case "c", "C":
                if let value = OSLogFormat.integer(argument), let scalar = Unicode.Scalar(UInt32(truncatingIfNeeded: value)) {
                    return pad(String(Character(scalar)), columns: columns, left: leftAligned)
                }
            default: break
            }
            // Strings, objects, pointers, and any value whose type is not the conversion's: its description.
            var text = String(describing: argument)
            if let precision, conversion == "s" || conversion == "S" || conversion == "@", text.count > precision { text = String(text.prefix(precision)) }
            return pad(text, columns: columns, left: leftAligned)
        }

        /// An integer's bits as unsigned, as wide as its own type (`Int32(-1)` is `ffffffff`).
        func unsignedValue(_ argument: any CVarArg) -> UInt64? {
            guard let value = argument as? any BinaryInteger else { return OSLogFormat.integer(argument).map { UInt64(bitPattern: $0) } }
            let bits = UInt64(truncatingIfNeeded: value)
            return value.bitWidth >= 64 ? bits : bits & ((1 << UInt64(value.bitWidth)) - 1)
        }

        /// C's `snprintf` for one number, with this specifier's flags, width and precision.
        func c(_ value: any CVarArg, _ conversion: String, columns: Int?, left: Bool, precision: Int?) -> String {
            var format = "%" + flags.filter { $0 != "-" } + (left ? "-" : "")
            if let columns { format += String(columns) }
            if let precision { format += "." + String(precision) }
            format += conversion
            var buffer = [CChar](repeating: 0, count: 2 * OSLogFormat.widest + 400)
            let count = withVaList([value]) { vsnprintf(&buffer, buffer.count, format, $0) }
            guard count >= 0 else { return String(describing: value) }
            return String(decoding: buffer.prefix(min(Int(count), buffer.count - 1)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        func pad(_ text: String, columns: Int?, left: Bool) -> String {
            guard let columns, text.count < columns else { return text }
            let padding = String(repeating: " ", count: columns - text.count)
            return left ? text + padding : padding + text
        }
    }
}
