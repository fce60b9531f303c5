// User code written against Alamofire 5: only the `import` line differs (`import Alamofire`).
// Uploads (multipart with progress, raw data) and downloads to a destination, as apps write them.
import Foundation
import TapedeckClient

struct UploadReceipt: Decodable, Sendable, Equatable {
    let id: String
}

final class MediaService: Sendable {
    let session: Session
    let folder: URL

    init(session: Session, folder: URL) {
        self.session = session
        self.folder = folder
    }

    func uploadAvatar(_ imageData: Data, userID: Int, progress: @escaping @Sendable (Double) -> Void,
                      completion: @escaping @Sendable (Result<UploadReceipt, AFError>) -> Void) {
        let headers: HTTPHeaders = [
            "Authorization": "Bearer token",
            "Content-type": "multipart/form-data",
        ]
        session.upload(multipartFormData: { multipartFormData in
            multipartFormData.append(imageData, withName: "avatar", fileName: "avatar.jpg", mimeType: "image/jpeg")
            multipartFormData.append("\(userID)".data(using: .utf8)!, withName: "user_id")
            multipartFormData.append(Data("true".utf8), withName: "public")
        }, to: "https://api.example.com/uploads", method: .post, headers: headers)
        .uploadProgress { p in
            progress(p.fractionCompleted)
        }
        .validate()
        .responseDecodable(of: UploadReceipt.self) { response in
            completion(response.result)
        }
    }

    func uploadLog(_ data: Data, completion: @escaping @Sendable (Int?) -> Void) {
        session.upload(data, to: "https://api.example.com/logs", method: .put,
                       headers: [.contentType("text/plain")])
            .response { response in
                completion(response.response?.statusCode)
            }
    }

    func downloadReport(named name: String, completion: @escaping @Sendable (URL?) -> Void) {
        let folder = self.folder
        let destination: DownloadRequest.Destination = { _, response in
            let fileURL = folder.appendingPathComponent(response.suggestedFilename ?? name)
            return (fileURL, [.removePreviousFile, .createIntermediateDirectories])
        }
        session.download("https://api.example.com/reports/\(name)", to: destination)
            .downloadProgress { progress in
                _ = progress.fractionCompleted
            }
            .validate()
            .response { response in
                if response.error == nil, let path = response.fileURL?.path {
                    completion(URL(fileURLWithPath: path))
                } else {
                    completion(nil)
                }
            }
    }

    func downloadData(named name: String) async throws -> Data {
        try await session.download("https://api.example.com/reports/\(name)").serializingData().value
    }
}
