import Foundation

/// A colour (Apple's `UIColor`): its red, green, blue and alpha components in the extended sRGB space,
/// which is all a model or a view model keeps of one here (there is nothing to draw). The system
/// colours are their light-mode values in Apple's Human Interface Guidelines (iOS); dynamic colours do
/// not change with an appearance. Archivable (`NSSecureCoding`), copyable, equal when the components are.
open class UIColor: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    // Not public: Apple's UIColor has no such properties (read them with `getRed(_:green:blue:alpha:)`).
    private let r: CGFloat
    private let g: CGFloat
    private let b: CGFloat
    private let a: CGFloat

    public init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        r = red
        g = green
        b = blue
        a = alpha
        super.init()
    }

    /// A grey: `white` 0 is black, 1 is white.
    public convenience init(white: CGFloat, alpha: CGFloat) { self.init(red: white, green: white, blue: white, alpha: alpha) }

    /// Display P3 components, kept as given (no colour-space conversion here).
    public convenience init(displayP3Red red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        self.init(red: red, green: green, blue: blue, alpha: alpha)
    }

    public convenience init(hue: CGFloat, saturation: CGFloat, brightness: CGFloat, alpha: CGFloat) {
        let h = (hue - hue.rounded(.down)) * 6, s = min(max(saturation, 0), 1), v = min(max(brightness, 0), 1)
        let sector = Int(h.rounded(.down)) % 6, f = h - h.rounded(.down)
        let p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f))
        let (r, g, b): (CGFloat, CGFloat, CGFloat) =
            switch sector {
            case 0: (v, t, p)
            case 1: (q, v, p)
            case 2: (p, v, t)
            case 3: (p, q, v)
            case 4: (t, p, v)
            default: (v, p, q)
            }
        self.init(red: r, green: g, blue: b, alpha: alpha)
    }

    /// The colour's components; true, as for any colour in an RGB-compatible space.
    open func getRed(
        _ red: UnsafeMutablePointer<CGFloat>?, green: UnsafeMutablePointer<CGFloat>?, blue: UnsafeMutablePointer<CGFloat>?,
        alpha: UnsafeMutablePointer<CGFloat>?
    ) -> Bool {
        red?.pointee = r
        green?.pointee = g
        blue?.pointee = b
        alpha?.pointee = a
        return true
    }

    open func getWhite(_ white: UnsafeMutablePointer<CGFloat>?, alpha: UnsafeMutablePointer<CGFloat>?) -> Bool {
        white?.pointee = 0.299 * r + 0.587 * g + 0.114 * b
        alpha?.pointee = a
        return true
    }

    open func getHue(
        _ hue: UnsafeMutablePointer<CGFloat>?, saturation: UnsafeMutablePointer<CGFloat>?, brightness: UnsafeMutablePointer<CGFloat>?,
        alpha: UnsafeMutablePointer<CGFloat>?
    ) -> Bool {
        let high = max(r, g, b), low = min(r, g, b), range = high - low
        var h: CGFloat = 0
        if range > 0 {
            if high == r {
                h = (g - b) / range
            } else if high == g {
                h = 2 + (b - r) / range
            } else {
                h = 4 + (r - g) / range
            }
            h /= 6
            if h < 0 { h += 1 }
        }
        hue?.pointee = h
        saturation?.pointee = high > 0 ? range / high : 0
        brightness?.pointee = high
        alpha?.pointee = a
        return true
    }

    /// The same colour with another alpha.
    open func withAlphaComponent(_ alpha: CGFloat) -> UIColor { UIColor(red: r, green: g, blue: b, alpha: alpha) }

    // MARK: - Equality, copying, archiving

    override open func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UIColor else { return false }
        return r == other.r && g == other.g && b == other.b && a == other.a
    }

    override open var hash: Int {
        var hasher = Hasher()
        for component in [r, g, b, a] { hasher.combine(component) }
        return hasher.finalize()
    }

    override open var description: String { "UIExtendedSRGBColorSpace \(r) \(g) \(b) \(a)" }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        coder.encode(Double(r), forKey: "UIRed")
        coder.encode(Double(g), forKey: "UIGreen")
        coder.encode(Double(b), forKey: "UIBlue")
        coder.encode(Double(a), forKey: "UIAlpha")
    }

    public required init?(coder: NSCoder) {
        guard coder.containsValue(forKey: "UIRed") else { return nil }
        r = CGFloat(coder.decodeDouble(forKey: "UIRed"))
        g = CGFloat(coder.decodeDouble(forKey: "UIGreen"))
        b = CGFloat(coder.decodeDouble(forKey: "UIBlue"))
        a = CGFloat(coder.decodeDouble(forKey: "UIAlpha"))
        super.init()
    }

    // MARK: - Fixed colours

    private static func rgb(_ red: Int, _ green: Int, _ blue: Int, _ alpha: CGFloat = 1) -> UIColor {
        UIColor(red: CGFloat(red) / 255, green: CGFloat(green) / 255, blue: CGFloat(blue) / 255, alpha: alpha)
    }

    open class var black: UIColor { UIColor(white: 0, alpha: 1) }
    open class var darkGray: UIColor { UIColor(white: 1 / 3, alpha: 1) }
    open class var lightGray: UIColor { UIColor(white: 2 / 3, alpha: 1) }
    open class var white: UIColor { UIColor(white: 1, alpha: 1) }
    open class var gray: UIColor { UIColor(white: 0.5, alpha: 1) }
    open class var red: UIColor { UIColor(red: 1, green: 0, blue: 0, alpha: 1) }
    open class var green: UIColor { UIColor(red: 0, green: 1, blue: 0, alpha: 1) }
    open class var blue: UIColor { UIColor(red: 0, green: 0, blue: 1, alpha: 1) }
    open class var cyan: UIColor { UIColor(red: 0, green: 1, blue: 1, alpha: 1) }
    open class var yellow: UIColor { UIColor(red: 1, green: 1, blue: 0, alpha: 1) }
    open class var magenta: UIColor { UIColor(red: 1, green: 0, blue: 1, alpha: 1) }
    open class var orange: UIColor { UIColor(red: 1, green: 0.5, blue: 0, alpha: 1) }
    open class var purple: UIColor { UIColor(red: 0.5, green: 0, blue: 0.5, alpha: 1) }
    open class var brown: UIColor { UIColor(red: 0.6, green: 0.4, blue: 0.2, alpha: 1) }
    open class var clear: UIColor { UIColor(white: 0, alpha: 0) }

    // MARK: - System colours (light mode)

    open class var systemRed: UIColor { rgb(255, 59, 48) }
    open class var systemOrange: UIColor { rgb(255, 149, 0) }
    open class var systemYellow: UIColor { rgb(255, 204, 0) }
    open class var systemGreen: UIColor { rgb(52, 199, 89) }
    open class var systemMint: UIColor { rgb(0, 199, 190) }
    open class var systemTeal: UIColor { rgb(48, 176, 199) }
    open class var systemCyan: UIColor { rgb(50, 173, 230) }
    open class var systemBlue: UIColor { rgb(0, 122, 255) }
    open class var systemIndigo: UIColor { rgb(88, 86, 214) }
    open class var systemPurple: UIColor { rgb(175, 82, 222) }
    open class var systemPink: UIColor { rgb(255, 45, 85) }
    open class var systemBrown: UIColor { rgb(162, 132, 94) }
    open class var systemGray: UIColor { rgb(142, 142, 147) }
    open class var systemGray2: UIColor { rgb(174, 174, 178) }
    open class var systemGray3: UIColor { rgb(199, 199, 204) }
    open class var systemGray4: UIColor { rgb(209, 209, 214) }
    open class var systemGray5: UIColor { rgb(229, 229, 234) }
    open class var systemGray6: UIColor { rgb(242, 242, 247) }
    open class var tintColor: UIColor { systemBlue }

    open class var label: UIColor { rgb(0, 0, 0) }
    open class var secondaryLabel: UIColor { rgb(60, 60, 67, 0.6) }
    open class var tertiaryLabel: UIColor { rgb(60, 60, 67, 0.3) }
    open class var quaternaryLabel: UIColor { rgb(60, 60, 67, 0.18) }
    open class var placeholderText: UIColor { rgb(60, 60, 67, 0.3) }
    open class var separator: UIColor { rgb(60, 60, 67, 0.29) }
    open class var opaqueSeparator: UIColor { rgb(198, 198, 200) }
    open class var link: UIColor { rgb(0, 122, 255) }
    open class var systemFill: UIColor { rgb(120, 120, 128, 0.2) }
    open class var secondarySystemFill: UIColor { rgb(120, 120, 128, 0.16) }
    open class var tertiarySystemFill: UIColor { rgb(118, 118, 128, 0.12) }
    open class var quaternarySystemFill: UIColor { rgb(116, 116, 128, 0.08) }
    open class var systemBackground: UIColor { rgb(255, 255, 255) }
    open class var secondarySystemBackground: UIColor { rgb(242, 242, 247) }
    open class var tertiarySystemBackground: UIColor { rgb(255, 255, 255) }
    open class var systemGroupedBackground: UIColor { rgb(242, 242, 247) }
    open class var secondarySystemGroupedBackground: UIColor { rgb(255, 255, 255) }
    open class var tertiarySystemGroupedBackground: UIColor { rgb(242, 242, 247) }
}
