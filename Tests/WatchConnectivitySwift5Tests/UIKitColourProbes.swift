import Foundation
import UIKit

/// What UIKitSurfaceTests asks of UIKit's colours, in a file that imports UIKit and not Testing.
enum UIKitColourProbes {
    static func components(_ color: UIColor) -> [CGFloat] {
        var red: CGFloat = 0, green: CGFloat = 0, blue: CGFloat = 0, alpha: CGFloat = 0
        _ = color.getRed(&red, green: &green, blue: &blue, alpha: &alpha)
        return [red, green, blue, alpha]
    }

    static func components255(of name: String) -> [CGFloat] {
        let color: UIColor =
            switch name {
            case "systemRed": .systemRed
            case "systemBlue": .systemBlue
            default: .clear
            }
        return components(color).map { ($0 * 255).rounded() }
    }

    static func grey(_ white: CGFloat) -> [CGFloat] { components(UIColor(white: white, alpha: 1)) }

    static func fromHue(_ hue: CGFloat) -> [CGFloat] { components(UIColor(hue: hue, saturation: 1, brightness: 1, alpha: 1)) }

    /// The largest difference between system orange and the same colour through hue, saturation, brightness.
    static func orangeThroughHueAndBack() -> CGFloat {
        var hue: CGFloat = 0, saturation: CGFloat = 0, brightness: CGFloat = 0, alpha: CGFloat = 0
        guard UIColor.systemOrange.getHue(&hue, saturation: &saturation, brightness: &brightness, alpha: &alpha) else { return 1 }
        let back = UIColor(hue: hue, saturation: saturation, brightness: brightness, alpha: alpha)
        return zip(components(back), components(.systemOrange)).map { abs($0 - $1) }.max() ?? 1
    }

    static func sprintIsItsRGB() -> Bool {
        PaceZone.sprint.color == UIColor(red: 0.9, green: 0.1, blue: 0.2, alpha: 1) && PaceZone.easy.bandColor != PaceZone.easy.color
    }

    static func bandAlpha() -> CGFloat { components(PaceZone.easy.bandColor)[3] }

    static func tempoArchivesAndComesBack() throws -> Bool {
        let data = try NSKeyedArchiver.archivedData(withRootObject: PaceZone.tempo.color, requiringSecureCoding: true)
        return try NSKeyedUnarchiver.unarchivedObject(ofClass: UIColor.self, from: data) == PaceZone.tempo.color
    }
}
