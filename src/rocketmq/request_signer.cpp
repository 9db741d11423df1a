#include "rocketmq/request_signer.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace outpost::rocketmq {

Result<std::string> hmac_sha1_base64(const std::string& secret, const std::string& data) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int digest_length = 0;
    if (HMAC(EVP_sha1(), secret.data(), static_cast<int>(secret.size()),
             reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest,
             &digest_length) == nullptr) {
        return Status::error(StatusCode::kInternal, "OpenSSL could not compute HMAC-SHA1");
    }
    // 4 output characters per 3 input bytes, plus the terminating NUL.
    unsigned char encoded[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
    const int encoded_length = EVP_EncodeBlock(encoded, digest, static_cast<int>(digest_length));
    return std::string(reinterpret_cast<const char*>(encoded),
                       static_cast<std::size_t>(encoded_length));
}

Status sign_request(RemotingCommand& request, const Credentials& credentials) {
    request.ext_fields.erase(kFieldSignature);
    request.ext_fields[kFieldAccessKey] = credentials.access_key;
    // std::map iterates in byte order of the names, which for the ASCII names
    // RocketMQ uses is the order of the server's TreeMap<String, String>.
    std::string content;
    for (const auto& [name, value] : request.ext_fields) {
        content += value;
    }
    content += request.body;
    Result<std::string> signature = hmac_sha1_base64(credentials.secret_key, content);
    if (!signature.is_ok()) {
        request.ext_fields.erase(kFieldAccessKey);
        return signature.status();
    }
    request.ext_fields[kFieldSignature] = std::move(signature).value();
    return Status::ok();
}

}  // namespace outpost::rocketmq
