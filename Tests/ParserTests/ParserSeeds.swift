/// The seed inputs of each parser target: valid inputs of every shape the parser reads, and the edges
/// that broke it before (a `$date` with 19 fraction digits, a pace of 9223372036854775807 minutes).
/// `scripts/fuzz --write-seeds` writes them to `Fuzz/parsers/TARGET/seed-NAME`; `ParserPropertyTests`
/// mutates them. No `Testing` here: the fuzzer compiles this file too.
enum ParserSeeds {
    static func all(_ target: ParserTarget) -> [(name: String, bytes: [UInt8])] {
        // Named by their index, `00`, `01`, …: the text can be anything.
        texts(target).enumerated().map { index, text in (index < 10 ? "0\(index)" : "\(index)", Array(text.utf8)) }
    }

    static func texts(_ target: ParserTarget) -> [String] {
        switch target {
        case .iso8601:
            return [
                "2026-11-30T07:00:00Z", "2026-11-30T07:00:00.250Z", "2026-11-30T07:00:00.999999999Z", "2026-11-30T16:00:00+09:00",
                "2026-11-30T07:00:00.5-04:30", "2026-11-30t07:00:00z", "2000-02-29T23:59:59Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z",
                "2026-11-30T07:00:00.9999999999999999999Z", "2026-02-30T07:00:00Z", "2026-11-30T07:00:60Z", "2026-11-30T07:00:00",
            ]
        case .duration:
            return ["7d", "1d12h", "90s", "0s", "3650d", "1d2h3m4s", "999999999999d", "1000000000000d", "12", "1h1d", "-1d"]
        case .version:
            return [
                "1.4", "1.4.0", "1.3.2", "1.10\n1.9", "01.04\n1.4", "9999.9999.9999.9999", "1..4", "1.4.0.0.0",
                #"{"results":[{"version":"1.5","trackViewUrl":"https://apps.apple.com/app/id1"}]}"#, #"{"results":[]}"#,
            ]
        case .typedJSON:
            return [
                #"{"kind":"note","at":{"$date":"2026-11-30T21:00:00.125+09:00"},"raw":{"$data":"AAEC/w=="},"list":[{"$date":"1970-01-01T00:00:00Z"}]}"#,
                #"{"at":{"$date":"2026-11-30T07:00:00.9999999999999999999Z"}}"#, #"{"at":{"$date":"2026-11-30T12:00:00Z","tz":"KST"}}"#,
                #"{"raw":{"$data":"AAE"}}"#, #"{"n":1,"r":2.5,"b":true,"s":"x","a":[1,[2,{"c":null}]],"$dates":1}"#,
                #"{"big":1e308,"neg":-9223372036854775808}"#,
            ]
        case .request:
            return [
                #"{"command":"transfer-userinfo","payload":{"at":{"$date":"2026-11-30T07:00:00.9999999999999999999Z"}}}"#,
                #"{"command":"context-set","payload":{"k":{"$data":"AAEC/w=="}}}"#, #"{"command":"message","payload":{"q":1},"timeoutMs":100}"#,
                #"{"command":"record","count":3,"distanceKm":5.5}"#, #"{"command":"clock-set","at":1796022000,"frozen":true}"#,
                #"{"command":"run-sample","samples":[[1,3,360,150],[2,6,360,151]]}"#, #"{"command":"flight","id":"01938b2c-7a00-7000-8000-000000000000"}"#,
                #"{"command":"group-set","view":"logbook","key":"2026-11","expanded":true}"#, #"{"command":"status","role":"phone"}"#,
            ]
        case .runSamples:
            return [
                "[[1,3,360,150],[2,6,360,151],[3,6,0,120]]", "[[60,200,300,0],[120,400,1200,250]]", "[[1,100,360,150]]",
                "[[5,20,0,0],[6,25,1200,30],[604800,1000000,120,250]]", "[[1,3,360]]", "[[0,0,0,0]]",
                "[[1e9,0,0,0]]", "[[2,5,360,150],[1,6,360,150]]", "6:00", "20:00", "9223372036854775807:00", "140-160", "39-221",
            ]
        case .timeline:
            return [
                #"{"runwayTimeline":1,"pair":"default","intervalMs":100}"# + "\n"
                    + #"{"t":0.1,"watch":{"up":true,"pid":812,"count":500},"phone":{"up":false}}"# + "\n"
                    + #"{"t":0.2,"watch":{"up":true,"pid":812,"count":480},"phone":{"up":true,"pid":901,"count":20}}"# + "\n"
                    + #"{"t":0.3,"watch":{"up":true,"pid":813,"count":0},"phone":{"up":true,"pid":901,"count":500}}"#,
                #"{"runwayTimeline":1,"pair":"p","intervalMs":1}"# + "\n" + #"{"t":10000000,"watch":{"up":false},"phone":{"up":false}}"#,
                #"{"runwayTimeline":1,"pair":"p","intervalMs":100}"# + "\n" + #"{"t":1e308,"watch":{"up":true},"phone":{"up":true}}"#,
                #"{"runwayTimeline":2}"#,
            ]
        case .registry:
            return [
                #"{"pairs":[{"name":"default","phone":"/tmp/p","watch":"/tmp/w"},{"name":"pair2","phone":"/a","watch":"/b"}]}"#, #"{"pairs":[]}"#,
                #"{"pairs":[{"name":"-x","phone":"/p","watch":"/w"}]}"#, #"{"pairs":{}}"#, "not json",
            ]
        case .scenario:
            return [
                #"{"steps":[{"record":200},{"drain":{"timeout":"2m"}},{"wait":{"app":"not running","timeout":"1m"}},{"expect":{"lost":0,"stored":"all"}}],"phoneArgs":["--save-path","ui-drain"],"backgroundBudgetMs":300}"#,
                #"{"name":"k","steps":[{"record":{"count":[50,150],"distanceKm":5}},{"kill":{"target":"phone-app","after":[0,400]}},{"kill":"phone-os"},{"relaunch":"phone-os"},{"link":"down"},{"send":{"from":"phone","count":[1,3]}},{"link":{"state":"up"}},"jetsam",{"clock-advance":"1d12h"},{"app":"force-quit"},{"sleep":[0,500]},{"expect":{"received":"all","duplicated":[0,2],"outstanding":0,"clean":true}}]}"#,
                #"{"phoneApp":"app","steps":[{"expect":{"outstanding":0}}]}"#, #"{"phoneApp":"app","steps":[{"expect":{"lost":0}}]}"#,
                #"{"steps":[{"record":0}]}"#, #"{"steps":[{"record":[9,3]}]}"#, #"{"steps":[{"kil":"watch"}]}"#, #"{"steps":[]}"#,
                #"{"steps":[{"clock-advance":"3651d"}]}"#, #"{"steps":[{"drain":{"timeout":"0s"}}]}"#, #"{"stepz":[]}"#, "[1]", "not json",
                #"{"steps":[{"record":5,"send":5}]}"#, #"{"watchApp":"w","steps":[{"record":1}]}"#, #"{"steps":["jetsam"]}"#,
                #"{"steps":[{"record":5}]}"#, #"{"steps":[{"link":"down"},{"link":"up"}]}"#, #"{"steps":[{"sleep":10}]}"#,
                #"{"steps":[{"expect":{"lost":0}}]}"#, #"{"steps":[{"send":[1,9]},"drain"]}"#,
                #"{"phoneApp":"a","phoneStore":{"path":"L/x.sqlite","ids":"SELECT id FROM r"},"steps":[{"expect":{"stored":"all"}}]}"#,
                #"{"phoneApp":"a","phoneStore":{"path":"Documents/runs.log"},"steps":[{"expect":{"lost":0}}]}"#,
                #"{"system":"realistic:18446744073709551615:low-power","steps":[{"record":3},"drain"]}"#,
                #"{"system":"realistic:abc","steps":[{"record":1}]}"#, #"{"system":42,"steps":[{"record":1}]}"#,
            ]
        case .arguments:
            return [
                "--count\u{0}3\u{0}--json", "--distance=5.5\u{0}--home\u{0}/tmp/h", "-4\u{0}--seed\u{0}-9223372036854775808", "--count\u{0}1e3",
                "--count=99999999999999999999", "--distance\u{0}nan", "--\u{0}--json\u{0}7d", "--nope", "6:00\u{0}140-160", "--json=1",
            ]
        case .pairingSecret:
            return [
                String(repeating: "0123456789abcdef", count: 4) + "\n", String(repeating: "ABCDEF0123456789", count: 4),
                String(repeating: "a", count: 63) + "\n", String(repeating: "a", count: 65), String(repeating: "g", count: 64) + "\n",
                String(repeating: "a", count: 64) + "\n\n", "", "7C2F6F87-4812-48A8-8058-EE23E932C9D7", "../etc", ".hidden", "pair.1",
            ]
        case .linkSchedule:
            return [
                #"{"seed":7,"steps":[{"at":0,"latencyMs":50,"jitterMs":20,"loss":0.2},{"at":2000,"range":"wifi"},{"at":4000,"range":"out"},{"at":6000,"range":"near","reset":true}]}"#,
                #"{"steps":[{"at":0,"bandwidthKbps":800}]}"#, #"{"steps":[{"at":86400000,"loss":1}]}"#,
                #"{"latencyMs":40,"jitterMs":0,"loss":0,"bandwidthKbps":0,"range":"out"}"#, #"{"steps":[{"at":5,"loss":0.1},{"at":4,"loss":0.1}]}"#,
                #"{"steps":[{"at":0,"loss":1.0000001}]}"#, #"{"steps":[{"at":0}]}"#, #"{"seed":-1,"steps":[]}"#, #"{"steps":[{"at":1e3,"latencyMs":60001}]}"#,
                #"{"seed":7,"startedAtNs":123456789,"applied":1,"steps":[{"at":0,"range":"out"},{"at":500,"range":"near"}]}"#,
                #"{"seed":0,"startedAtNs":0,"applied":3,"steps":[{"at":0,"loss":0.5}]}"#,
            ]
        }
    }
}
