/// The inactivity reminders' words: one text per stage and language, kept in the app's catalogue
/// (`AppTexts`, keys `reminder.7d` … `reminder.28d`) with every other user-visible text.
///
/// The 7- and 28-day Korean texts are the app's own (seed 001); the 14- and 21-day ones, and every
/// English and Japanese text, are this simulator's (APP_SPEC G.3, section 4 "Texts"). Korean is the
/// development region, so it is the default and what an unknown language code gets.
public enum ReminderTexts {
    public static let languages = AppLanguage.codes
    public static let defaultLanguage = AppLanguage.developmentRegion.rawValue

    public static func title(language: String) -> String { "RunWay" }

    /// The body for the reminder `elapsedDays` after the last run (7, 14, 21 or 28).
    public static func body(elapsedDays: Int, language: String = defaultLanguage) -> String {
        AppTexts.text(.reminder(elapsedDays: elapsedDays), AppLanguage(rawValue: language) ?? .developmentRegion)
    }
}
