// A throwaway PKI for TLS tests, made with the openssl command line tool:
// certificate authorities, a broker certificate for 127.0.0.1 and client
// certificates whose CN names a gateway. Keys are unencrypted EC P-256.
#ifndef OUTPOST_TESTS_TEST_PKI_H
#define OUTPOST_TESTS_TEST_PKI_H

#include <sys/stat.h>
#include <sys/wait.h>

#include <cctype>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mosquitto_fixture.h"
#include "temp_dir.h"

namespace outpost::testing {

// PEM file paths of one certificate and its key.
struct CertFiles {
    std::string cert;
    std::string key;
};

class TestPki final {
  public:
    TestPki() {
        openssl_ = find_program("openssl");
        if (openssl_.empty()) throw std::runtime_error("openssl is not installed");
    }

    // A self-signed CA called `name`.
    CertFiles make_ca(const std::string& name) {
        CertFiles ca = paths(name);
        make_key(ca.key);
        run({openssl_, "req", "-x509", "-new", "-key", ca.key, "-out", ca.cert, "-days", "2",
             "-subj", "/CN=" + name, "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign"});
        return ca;
    }

    // A certificate for `common_name` signed by `ca`: a broker certificate
    // (serverAuth, SAN IP 127.0.0.1 and DNS localhost) or a client one.
    // Any CN, even one with '/', '+' or '#' (escaped for -subj; the files
    // are named by a cleaned copy).
    CertFiles issue(const CertFiles& ca, const std::string& common_name, bool server) {
        CertFiles leaf = paths(file_name(common_name) + (server ? "-server" : "-client"));
        make_key(leaf.key);
        const std::string csr = leaf.cert + ".csr";
        run({openssl_, "req", "-new", "-key", leaf.key, "-out", csr, "-subj",
             "/CN=" + subject_escaped(common_name)});
        const std::string extensions = leaf.cert + ".ext";
        std::ofstream(extensions)
            << "basicConstraints=CA:FALSE\n"
            << (server ? "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n"
                       : "extendedKeyUsage=clientAuth\n");
        run({openssl_, "x509", "-req", "-in", csr, "-CA", ca.cert, "-CAkey", ca.key,
             "-CAcreateserial", "-out", leaf.cert, "-days", "2", "-extfile", extensions});
        return leaf;
    }

    // A CRL of `ca` (PEM, valid two days) listing `revoked`, each a
    // certificate `ca` issued. With none: an empty CRL.
    std::string make_crl(const CertFiles& ca, const std::vector<CertFiles>& revoked = {}) {
        const std::string base = dir_.file(file_name(ca.cert) + "-crl");
        ::mkdir(base.c_str(), 0700);
        std::ofstream(base + "/index.txt");
        std::ofstream(base + "/crlnumber") << "01\n";
        std::ofstream(base + "/ca.cnf") << "[ca]\ndefault_ca = test\n[test]\n"
                                        << "database = " << base << "/index.txt\n"
                                        << "crlnumber = " << base << "/crlnumber\n"
                                        << "default_md = sha256\ndefault_crl_days = 2\n";
        for (const CertFiles& leaf : revoked) {
            run({openssl_, "ca", "-config", base + "/ca.cnf", "-keyfile", ca.key, "-cert", ca.cert,
                 "-revoke", leaf.cert});
        }
        const std::string crl = base + "/ca.crl";
        run({openssl_, "ca", "-config", base + "/ca.cnf", "-keyfile", ca.key, "-cert", ca.cert,
             "-gencrl", "-out", crl});
        return crl;
    }

  private:
    static std::string file_name(const std::string& text) {
        std::string name;
        for (char c : text) {
            const bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
            name += plain ? c : '_';
        }
        return name;
    }

    static std::string subject_escaped(const std::string& text) {
        std::string escaped;
        for (char c : text) {
            if (c == '/' || c == '+' || c == '\\' || c == '=') escaped += '\\';
            escaped += c;
        }
        return escaped;
    }

    CertFiles paths(const std::string& name) const {
        return {dir_.file(name + ".crt"), dir_.file(name + ".key")};
    }

    void make_key(const std::string& path) {
        run({openssl_, "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
             "-out", path});
    }

    void run(const std::vector<std::string>& argv) {
        const std::string log = dir_.file("openssl.log");
        const pid_t pid = spawn_logged(argv, log);
        int status = 0;
        ::waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            throw std::runtime_error("openssl " + argv[1] + " failed:\n" + read_file(log));
        }
    }

    std::string openssl_;
    TempDir dir_;
};

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_TEST_PKI_H
