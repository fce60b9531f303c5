// On Linux, URLRequest, URLSession and HTTPURLResponse live in FoundationNetworking. Alamofire
// re-exports it, so app code that imports only Foundation and Alamofire sees those types; the same
// code importing TapedeckClient instead must too.
#if canImport(FoundationNetworking)
@_exported public import FoundationNetworking
#endif
