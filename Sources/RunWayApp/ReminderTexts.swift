/// The inactivity reminders' words, one literal per stage and language.
///
/// Written as literal branches, not an array, for the reason the seed gives (RunWay 1.3.2): Xcode's
/// String Catalog extracts only literals written out in the source. The 7- and 28-day Korean texts are
/// the app's own; the 14- and 21-day ones, and every English and Japanese text, are this simulator's
/// (APP_SPEC section 4, "Texts"). Korean is the development region, so it is the default.
public enum ReminderTexts {
    public static let languages = ["ko", "en", "ja"]
    public static let defaultLanguage = "ko"

    public static func title(language: String) -> String { "RunWay" }

    /// The body for the reminder `elapsedDays` after the last run (7, 14, 21 or 28).
    public static func body(elapsedDays: Int, language: String = defaultLanguage) -> String {
        switch language {
        case "en":
            switch elapsedDays {
            case 7: return "Your runway has been empty for a week. Shall we take off again today?"
            case 14: return "Two weeks of an empty runway. How about one easy lap to get airborne again?"
            case 21: return "Three weeks on the ground. Even a short flight counts: ready for take-off today?"
            default: return "Your runway has been empty for a month. Shall we light up the control tower again today?"
            }
        case "ja":
            switch elapsedDays {
            case 7: return "滑走路が空いて一週間になります。今日また離陸してみませんか？"
            case 14: return "滑走路が空いて二週間になります。軽く一周、また離陸してみませんか？"
            case 21: return "滑走路が空いて三週間になります。短くてもいいので、今日また飛び立ってみませんか？"
            default: return "滑走路が空いて一か月になります。今日また管制塔に灯りをともしてみませんか？"
            }
        default:
            switch elapsedDays {
            case 7: return "일주일째 활주로가 비어있어요. 오늘 다시 이륙해볼까요?"
            case 14: return "2주째 활주로가 비어있어요. 가볍게 한 바퀴, 다시 이륙해볼까요?"
            case 21: return "3주째 활주로가 비어있어요. 짧게라도 좋으니 오늘 다시 날아올라볼까요?"
            default: return "한 달째 활주로가 비어있어요. 오늘 다시 관제탑에 불을 켜볼까요?"
            }
        }
    }
}
