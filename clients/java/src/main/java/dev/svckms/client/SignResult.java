package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** A signature (base64: DER for ECDSA, raw for EdDSA and HMAC) and the key version that made it. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SignResult(String signatureBase64, String algorithm, int keyVersion) {
}
