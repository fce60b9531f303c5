// On Linux, URLRequest and HTTPURLResponse live in FoundationNetworking. Moya re-exports
// Alamofire, which re-exports it, so a plugin written against `import Foundation` and `import Moya`
// names URLRequest freely; the same code importing TapedeckProvider instead must too.
#if canImport(FoundationNetworking)
@_exported public import FoundationNetworking
#endif
