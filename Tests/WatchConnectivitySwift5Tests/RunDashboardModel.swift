// A view model in the Combine idioms apps use: two sources combined, a search field debounced, live
// samples throttled, a save shown for a moment then hidden (delay), a one-shot lookup as a Future, the
// clock from Timer.publish. Compiled unchanged in Swift 5 and 6 modes with MemberImportVisibility.

import Combine
import Foundation

final class RunDashboardModel: ObservableObject {
    struct Sample {
        var heartRate: Double
        var metres: Double
    }

    @Published var isReachable = false
    @Published var pendingTransfers = 0
    @Published var searchText = ""
    @Published private(set) var status = ""
    @Published private(set) var query = ""
    @Published private(set) var heartRate: Double = 0
    @Published private(set) var savedBannerVisible = false
    @Published private(set) var now = Date()

    let samples = PassthroughSubject<Sample, Never>()
    let watchEvents = PassthroughSubject<String, Never>()
    let phoneEvents = PassthroughSubject<String, Never>()
    private var cancellables = Set<AnyCancellable>()

    init(scheduler: DispatchQueue = .main) {
        $isReachable.combineLatest($pendingTransfers)
            .map { reachable, pending in reachable ? (pending == 0 ? "up to date" : "\(pending) to send") : "watch away" }
            .removeDuplicates()
            .receive(on: scheduler)
            .sink { [weak self] in self?.status = $0 }
            .store(in: &cancellables)

        $searchText
            .debounce(for: .milliseconds(300), scheduler: scheduler)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .sink { [weak self] in self?.query = $0 }
            .store(in: &cancellables)

        samples
            .throttle(for: .seconds(1), scheduler: scheduler, latest: true)
            .map(\.heartRate)
            .assign(to: &$heartRate)

        Timer.publish(every: 1, on: .main, in: .common)
            .autoconnect()
            .receive(on: RunLoop.main)
            .sink { [weak self] in self?.now = $0 }
            .store(in: &cancellables)
    }

    /// Every event of either device, as they come.
    var allEvents: AnyPublisher<String, Never> { Publishers.Merge(watchEvents, phoneEvents).eraseToAnyPublisher() }

    func showSaved(on scheduler: DispatchQueue = .main) {
        savedBannerVisible = true
        Just(false)
            .delay(for: .seconds(2), scheduler: scheduler)
            .sink { [weak self] in self?.savedBannerVisible = $0 }
            .store(in: &cancellables)
    }

    /// A one-shot lookup, as a Future the view's pipeline subscribes to.
    static func lastRunDistance(from journal: URL) -> Future<Double, Error> {
        Future { promise in
            do {
                let text = try String(contentsOf: journal, encoding: .utf8)
                promise(.success(Double(text.split(separator: "\n").last ?? "") ?? 0))
            } catch {
                promise(.failure(error))
            }
        }
    }
}
