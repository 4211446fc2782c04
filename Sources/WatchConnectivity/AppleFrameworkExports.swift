// As Apple's frameworks do, this module brings Foundation's names with it — and, as Foundation does on
// Apple's platforms, Combine's `ObservableObject`/`@Published` and key-value observing (`observe`,
// `NSKeyValueObservation`): a file that imports only this module can use `Data`, `URL`, `DispatchQueue`.
@_exported import Combine
@_exported import Foundation
@_exported import KeyValueObserving
// RunWay Pair's typed payloads (`transferUserInfo(typed:)`, `WCSessionBatchDelegate`): the value type the
// engine carries, handed to apps by name so that `.string("…")` and `.stringValue` resolve in a file that
// imports only WatchConnectivity (under `MemberImportVisibility` too).
@_exported import enum PropertyLists.PropertyListValue
