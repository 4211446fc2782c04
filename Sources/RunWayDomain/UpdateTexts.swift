/// The update alert's words, from the app's string catalogue (`AppTexts`: `update.title`,
/// `update.message`, `update.watch` — the seed's watch sentence, #61 — and the buttons).
public enum UpdateTexts {
    /// The seed's sentence about the watch app, also shown by the Pre-flight check on a version mismatch.
    public static func watchSentence(_ language: AppLanguage) -> String { AppTexts.text(.updateWatch, language) }

    public static func title(_ language: AppLanguage) -> String { AppTexts.updateAlert(version: "", language: language).title }

    public static func message(version: String, _ language: AppLanguage) -> String {
        AppTexts.updateAlert(version: version, language: language).message
    }

    /// The buttons' titles in `language`, Update first.
    public static func buttonTitles(_ language: AppLanguage) -> [String] {
        AppTexts.updateAlert(version: "", language: language).buttons
    }

    /// The buttons as `runway phone update respond` names them: there is deliberately no "don't show
    /// this version again" (#60).
    public static let buttons = ["Update", "Later"]
}
