public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Uploads: Alamofire's `upload` methods. Each makes an ``UploadRequest`` whose task is a URLSession
// upload task (from data, a file or a stream); a multipart form is encoded once per request.

extension Session {
    /// Uploads `data` to `url` (POST unless `method` says otherwise).
    ///
    /// ```swift
    /// session.upload(Data("hello".utf8), to: "https://api.example.com/notes").responseDecodable(of: Note.self) { … }
    /// ```
    public func upload(
        _ data: Data, to convertible: any URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default,
        requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        upload(data, with: Self.plainRequest(convertible, method, headers, requestModifier), interceptor: interceptor,
               shouldAutomaticallyResume: shouldAutomaticallyResume, fileManager: fileManager)
    }

    /// Uploads `data` with the URLRequest `convertible` builds (asked again on every attempt).
    public func upload(
        _ data: Data, with convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        upload(UploadRequest.Uploadable.data(data), request: convertible, interceptor: interceptor,
               shouldAutomaticallyResume: shouldAutomaticallyResume, fileManager: fileManager)
    }

    /// Uploads the file at `fileURL` to `url` (POST unless `method` says otherwise).
    public func upload(
        _ fileURL: URL, to convertible: any URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default,
        requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        upload(fileURL, with: Self.plainRequest(convertible, method, headers, requestModifier), interceptor: interceptor,
               shouldAutomaticallyResume: shouldAutomaticallyResume, fileManager: fileManager)
    }

    /// Uploads the file at `fileURL` with the URLRequest `convertible` builds.
    public func upload(
        _ fileURL: URL, with convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        upload(UploadRequest.Uploadable.file(fileURL, shouldRemove: false), request: convertible, interceptor: interceptor,
               shouldAutomaticallyResume: shouldAutomaticallyResume, fileManager: fileManager)
    }

    /// Uploads what `stream` gives to `url` (read once: a retry cannot send it again).
    public func upload(
        _ stream: InputStream, to convertible: any URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, fileManager: FileManager = .default, requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        upload(stream, with: Self.plainRequest(convertible, method, headers, requestModifier), interceptor: interceptor, fileManager: fileManager)
    }

    /// Uploads what `stream` gives with the URLRequest `convertible` builds.
    public func upload(
        _ stream: InputStream, with convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        upload(UploadRequest.Uploadable.stream(stream), request: convertible, interceptor: interceptor,
               shouldAutomaticallyResume: shouldAutomaticallyResume, fileManager: fileManager)
    }

    /// Uploads the multipart form `multipartFormData` fills, to `url` (POST unless `method` says
    /// otherwise). The request's `Content-Type` is the form's; a form of `encodingMemoryThreshold`
    /// bytes or more is encoded into a temporary file, removed when the request finished.
    ///
    /// ```swift
    /// session.upload(multipartFormData: { form in
    ///     form.append(Data("Ada".utf8), withName: "name")
    ///     form.append(photoURL, withName: "photo", fileName: "photo.jpg", mimeType: "image/jpeg")
    /// }, to: "https://api.example.com/profile").responseData { … }
    /// ```
    public func upload(
        multipartFormData: (MultipartFormData) -> Void, to url: any URLConvertible,
        usingThreshold encodingMemoryThreshold: UInt64 = MultipartFormData.encodingMemoryThreshold, method: HTTPMethod = .post,
        headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil, fileManager: FileManager = .default,
        requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        let form = MultipartFormData(fileManager: fileManager)
        multipartFormData(form)
        return upload(multipartFormData: form, to: url, usingThreshold: encodingMemoryThreshold, method: method, headers: headers,
                      interceptor: interceptor, fileManager: fileManager, requestModifier: requestModifier)
    }

    /// Uploads the multipart form `multipartFormData` fills, with the URLRequest `request` builds.
    public func upload(
        multipartFormData: (MultipartFormData) -> Void, with request: any URLRequestConvertible,
        usingThreshold encodingMemoryThreshold: UInt64 = MultipartFormData.encodingMemoryThreshold,
        interceptor: (any RequestInterceptor)? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        let form = MultipartFormData(fileManager: fileManager)
        multipartFormData(form)
        return upload(multipartFormData: form, with: request, usingThreshold: encodingMemoryThreshold, interceptor: interceptor,
                      fileManager: fileManager)
    }

    /// Uploads a multipart form built beforehand, to `url`.
    public func upload(
        multipartFormData: MultipartFormData, to url: any URLConvertible,
        usingThreshold encodingMemoryThreshold: UInt64 = MultipartFormData.encodingMemoryThreshold, method: HTTPMethod = .post,
        headers: HTTPHeaders? = nil, interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil,
        fileManager: FileManager = .default, requestModifier: RequestModifier? = nil
    ) -> UploadRequest {
        upload(multipartFormData: multipartFormData, with: Self.plainRequest(url, method, headers, requestModifier),
               usingThreshold: encodingMemoryThreshold, interceptor: interceptor, shouldAutomaticallyResume: shouldAutomaticallyResume,
               fileManager: fileManager)
    }

    /// Uploads a multipart form built beforehand, with the URLRequest `request` builds.
    public func upload(
        multipartFormData: MultipartFormData, with request: any URLRequestConvertible,
        usingThreshold encodingMemoryThreshold: UInt64 = MultipartFormData.encodingMemoryThreshold,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        let multipart = MultipartUpload(form: multipartFormData, encodingMemoryThreshold: encodingMemoryThreshold, request: request,
                                        fileManager: fileManager)
        return upload(multipart, request: multipart, interceptor: interceptor, shouldAutomaticallyResume: shouldAutomaticallyResume,
                      fileManager: fileManager)
    }

    /// An upload request for any body source and URLRequest (what every `upload` method ends in).
    /// `shouldAutomaticallyResume` nil: ``startRequestsImmediately`` decides, as for data requests
    /// (Alamofire takes it on the data, file and built-form uploads, and on the stream upload `with:`
    /// a URLRequest; so do we).
    public func upload(
        _ upload: any UploadableConvertible, request convertible: any URLRequestConvertible,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil, fileManager: FileManager = .default
    ) -> UploadRequest {
        let request = UploadRequest(
            id: nextRequestID(), convertible: convertible, upload: upload, fileManager: fileManager, underlyingQueue: rootQueue,
            serializationQueue: serializationQueue, eventMonitor: eventMonitor, interceptor: interceptor, delegate: self)
        if let shouldAutomaticallyResume { request.shouldAutomaticallyResume(shouldAutomaticallyResume) }
        if requestSetup == .eager { perform(request) }
        return request
    }

    /// A URLRequest with a URL, method and headers, modified by `modifier`, and no parameters.
    static func plainRequest(_ url: any URLConvertible, _ method: HTTPMethod, _ headers: HTTPHeaders?,
                             _ modifier: RequestModifier?) -> any URLRequestConvertible {
        RequestConvertible(url: url, method: method, parameters: nil, encoding: URLEncoding.default, headers: headers,
                           requestModifier: modifier)
    }
}
