import Foundation
import os

extension Logger {
    /// The app's one logger, as the sample has it.
    static let shared = Logger(subsystem: Bundle.main.bundleIdentifier!, category: "MirroringWorkouts")
}
