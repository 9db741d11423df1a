// Request signing as RocketMQ's own remoting clients do it (AclClientRPCHook
// upstream), accepted by brokers with ACL 1.0 (aclEnable=true) and with
// ACL 2.0 (authenticationEnabled=true, users made by `mqadmin createUser`).
//
// What is signed: the request's ext fields with AccessKey already added,
// sorted by name, their values (not their names) concatenated as UTF-8,
// followed by the body bytes. Signature = base64(HMAC-SHA1(secret, that)).
// The header's code, opaque, flag, version and remark are not signed, so a
// connection may give the signed request any opaque afterwards.
#ifndef OUTPOST_ROCKETMQ_REQUEST_SIGNER_H
#define OUTPOST_ROCKETMQ_REQUEST_SIGNER_H

#include <string>

#include "outpost/status.h"
#include "rocketmq/frame.h"

namespace outpost::rocketmq {

// Ext field names the server reads (SessionCredentials upstream).
constexpr const char* kFieldAccessKey = "AccessKey";
constexpr const char* kFieldSignature = "Signature";

// An access key and its secret. The secret never appears in a log line or an
// error message.
struct Credentials {
    std::string access_key;
    std::string secret_key;
};

// Adds AccessKey and Signature to `request` (replacing earlier values, so a
// request may be signed again after a field changed). Fails with kInternal
// only when OpenSSL cannot compute the HMAC; `request` then carries no
// signature.
Status sign_request(RemotingCommand& request, const Credentials& credentials);

// base64(HMAC-SHA1(secret, data)), the signature primitive (exposed for tests).
Result<std::string> hmac_sha1_base64(const std::string& secret, const std::string& data);

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_REQUEST_SIGNER_H
