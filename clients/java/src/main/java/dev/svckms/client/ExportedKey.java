package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Base64;

/**
 * One version's material of an exportable key: {@code format} is "raw" (AES, HMAC) or "pkcs8-der"
 * (RSA, EC, EdDSA, ML-DSA, SLH-DSA; {@code java.security.spec.PKCS8EncodedKeySpec} reads it on a JDK that
 * has the algorithm: ML-DSA from JDK 24).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ExportedKey(String id, int keyVersion, String format, String materialBase64) {
    /** The material's bytes (a new array each call: the caller may zero it). */
    public byte[] material() {
        return Base64.getDecoder().decode(materialBase64);
    }

    @Override
    public String toString() {
        // Key material: never in logs by accident.
        return "ExportedKey[id=" + id + ", keyVersion=" + keyVersion + ", format=" + format + "]";
    }
}
