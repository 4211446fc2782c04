/// The update alert's words (RunWay 1.4). Kept in this one small table until the app's string
/// catalogue (issue 14) can hold them. The Korean watch sentence is the seed's own (#61); the rest is
/// this simulator's (APP_SPEC §4, "Texts"). Korean is the development region, so it is the default.
public enum UpdateTexts {
    public static let defaultLanguage = "ko"

    /// The seed's sentence about the watch app, in the alert's message.
    public static func watchSentence(language: String = defaultLanguage) -> String {
        switch language {
        case "en": return "Please update the Apple Watch app too. If the two apps' versions differ, the devices may not work together as expected."
        case "ja": return "Apple Watch アプリも一緒にアップデートしてください。2つのアプリのバージョンが違うと、デバイス間の動作がずれることがあります。"
        default: return "Apple Watch 앱도 같이 업데이트해주세요. 두 앱의 버전이 다르면 기기 사이 동작이 어긋날 수 있어요."
        }
    }

    public static func title(language: String = defaultLanguage) -> String {
        switch language {
        case "en": return "Update available"
        case "ja": return "アップデートがあります"
        default: return "업데이트가 있어요"
        }
    }

    public static func message(version: String, language: String = defaultLanguage) -> String {
        let first: String
        switch language {
        case "en": first = "RunWay \(version) is available on the App Store."
        case "ja": first = "App Store に RunWay \(version) があります。"
        default: first = "App Store에 RunWay \(version)이 올라왔어요."
        }
        return first + " " + watchSentence(language: language)
    }

    /// The buttons, in order, as `runway phone update respond` names them: there is deliberately no
    /// "don't show this version again" (#60).
    public static let buttons = ["Update", "Later"]
}
