import Foundation

/// Foundation's `unarchivedArrayOfObjects(ofClass:from:)` (iOS 14, watchOS 7), which corelibs Foundation
/// does not have: how a workout app reads back the `[HKStatistics]` its watch archived (Apple's mirroring
/// sample does). Declared here, where the `NSSecureCoding` types apps archive to the mirror are: an array
/// of `cls` only, securely — anything else in the archive is corelibs' decoding error, thrown.
extension NSKeyedUnarchiver {
    public class func unarchivedArrayOfObjects<DecodedObjectType: NSObject & NSCoding>(
        ofClass cls: DecodedObjectType.Type, from data: Data
    ) throws -> [DecodedObjectType]? {
        try unarchivedObject(ofClasses: [NSArray.self, cls], from: data) as? [DecodedObjectType]
    }
}
