@_exported import Foundation
import Posix

// MARK: - WidgetKit: reloading the app's widgets' timelines (complications since watchOS 9)
//
// A watch app whose data changed asks WidgetKit to reload its widgets' timelines. No face is drawn here:
// each request is told to watch-os, which records it (`runway watch os status`: complication reloads by
// kind — `widgetkit.all`, `widgetkit.kind.KIND` — and the watch's log, `os.complication-reload`).

/// The app's widgets, as the system keeps them (WidgetKit's `WidgetCenter`).
public final class WidgetCenter: @unchecked Sendable {
    /// The app's one widget center.
    public static let shared = WidgetCenter()

    private init() {}

    /// Reloads every timeline of every widget of the app.
    public func reloadAllTimelines() {
        AppNotifier.reportReload("widgetkit.all")
    }

    /// Reloads the timelines of the widgets of `kind` (the `kind` of the app's `Widget`).
    public func reloadTimelines(ofKind kind: String) {
        AppNotifier.reportReload("widgetkit.kind." + kind)
    }
}
